from django.urls import path

from studies.api import results_views as views

urlpatterns = [
    path("studies/<slug:slug>/results/", views.StudyResultsView.as_view(), name="study-results"),
    path(
        "studies/<slug:slug>/results/compute/",
        views.StudyResultsComputeView.as_view(),
        name="study-results-compute",
    ),
    path(
        "studies/<slug:slug>/results/participants/",
        views.StudyResultsDecisionsView.as_view(),
        name="study-results-participants",
    ),
    path(
        "studies/<slug:slug>/results/participants/<int:pk>/decision/",
        views.StudyResultsDecisionView.as_view(),
        name="study-results-decision",
    ),
    path(
        "studies/<slug:slug>/results/compare/<slug:other>/",
        views.StudyComparisonView.as_view(),
        name="study-results-compare",
    ),
    path(
        "studies/<slug:slug>/results/exports/",
        views.StudyResultsExportView.as_view(),
        name="study-results-export",
    ),
]
