"""Study results pages (under /studies/study/<slug>/results/)."""

from django.urls import path

from studies.views import results as views

urlpatterns = [
    path("study/<slug:slug>/results/", views.study_results, name="results"),
    path("study/<slug:slug>/results/status/", views.study_results_status, name="results-status"),
    path("study/<slug:slug>/results/compute/", views.study_results_compute, name="results-compute"),
    path(
        "study/<slug:slug>/results/participants/<int:pk>/decision/",
        views.study_results_override,
        name="results-override",
    ),
    path("study/<slug:slug>/results/export/", views.study_results_export, name="results-export"),
    path(
        "study/<slug:slug>/results/download/<str:fmt>/",
        views.study_results_download,
        name="results-download",
    ),
    path(
        "study/<slug:slug>/results/exports/<int:job_id>/",
        views.study_results_job_download,
        name="results-job-download",
    ),
]
