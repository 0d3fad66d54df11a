"""Study set-up and monitoring pages (under /studies/study/)."""

from django.urls import path

from studies.views import study as views

urlpatterns = [
    path("new/", views.study_create, name="create"),
    path("study/", views.study_list, name="list"),
    path("study/<slug:slug>/", views.study_detail, name="detail"),
    path("study/<slug:slug>/edit/", views.study_edit, name="edit"),
    path("study/<slug:slug>/pairs/", views.study_pairs, name="pairs"),
    path("study/<slug:slug>/checks/", views.study_checks, name="checks"),
    path(
        "study/<slug:slug>/checks/<int:pk>/delete/", views.study_check_delete, name="check-delete"
    ),
    path("study/<slug:slug>/status/", views.study_status, name="status"),
    path("study/<slug:slug>/preview/", views.study_preview, name="preview"),
    path("study/<slug:slug>/clear-test-sessions/", views.study_clear_tests, name="clear-tests"),
    path("study/<slug:slug>/participants/<int:pk>/", views.study_session, name="session"),
    path(
        "study/<slug:slug>/participants/<int:pk>/release/",
        views.study_session_release,
        name="session-release",
    ),
]
