from django.urls import path

from studies.api import views

urlpatterns = [
    path("studies/", views.StudyListCreateView.as_view(), name="study-list"),
    path("studies/<slug:slug>/", views.StudyDetailView.as_view(), name="study-detail"),
    path("studies/<slug:slug>/status/", views.StudyStatusView.as_view(), name="study-status"),
    path(
        "studies/<slug:slug>/readiness/",
        views.StudyReadinessView.as_view(),
        name="study-readiness",
    ),
    path(
        "studies/<slug:slug>/starter-texts/",
        views.StudyStarterTextsView.as_view(),
        name="study-starter-texts",
    ),
    path("studies/<slug:slug>/pairs/", views.StudyPairsView.as_view(), name="study-pairs"),
    path("studies/<slug:slug>/video/", views.StudyVideoView.as_view(), name="study-video"),
    path(
        "studies/<slug:slug>/attention-checks/",
        views.AttentionCheckListCreateView.as_view(),
        name="study-checks",
    ),
    path(
        "studies/<slug:slug>/attention-checks/<int:pk>/",
        views.AttentionCheckDetailView.as_view(),
        name="study-check-detail",
    ),
    path("studies/<slug:slug>/monitor/", views.StudyMonitorView.as_view(), name="study-monitor"),
    path(
        "studies/<slug:slug>/sessions/", views.StudySessionListView.as_view(), name="study-sessions"
    ),
    path(
        "studies/<slug:slug>/sessions/<int:pk>/",
        views.StudySessionDetailView.as_view(),
        name="study-session-detail",
    ),
    path(
        "studies/<slug:slug>/sessions/<int:pk>/release/",
        views.StudySessionReleaseView.as_view(),
        name="study-session-release",
    ),
    path("studies/<slug:slug>/preview/", views.StudyPreviewView.as_view(), name="study-preview"),
    path(
        "studies/<slug:slug>/clear-test-sessions/",
        views.StudyTestSessionsClearView.as_view(),
        name="study-clear-tests",
    ),
]
