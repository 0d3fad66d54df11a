"""The studies app's REST API, mounted under /api/v1/ in the "api" namespace.

The participant flow as JSON (no account; the session token is in the path) lives under
participate/ with names prefixed "participate-"; the chart library under library/ with names
prefixed "library-"; everything about one study under studies/<slug>/.
"""

from django.urls import path

from studies.api import (
    library_views,
    model_eval_views,
    participant_views,
    results_views,
    views,
)

LIBRARY_SET = "library/chart-sets/<slug:slug>/"

urlpatterns = [
    # Chart library
    path(
        "library/chart-sets/",
        library_views.ChartSetListCreateView.as_view(),
        name="library-chartset-list",
    ),
    path(
        "library/chart-sets/import/",
        library_views.ChartSetImportView.as_view(),
        name="library-chartset-import",
    ),
    path(LIBRARY_SET, library_views.ChartSetDetailView.as_view(), name="library-chartset-detail"),
    path(
        LIBRARY_SET + "export/",
        library_views.ChartSetExportView.as_view(),
        name="library-chartset-export",
    ),
    path(
        LIBRARY_SET + "generate/",
        library_views.ChartSetGenerateView.as_view(),
        name="library-chartset-generate",
    ),
    path(LIBRARY_SET + "groups/", library_views.GroupListView.as_view(), name="library-group-list"),
    path(LIBRARY_SET + "pairs/", library_views.PairListView.as_view(), name="library-pair-list"),
    path(
        LIBRARY_SET + "pairs/<str:code>/",
        library_views.PairDetailView.as_view(),
        name="library-pair-detail",
    ),
    path(
        LIBRARY_SET + "charts/<str:chart_id>/",
        library_views.ChartDetailView.as_view(),
        name="library-chart-detail",
    ),
    path(
        LIBRARY_SET + "charts/<str:chart_id>/image/",
        library_views.ChartImageView.as_view(),
        name="library-chart-image",
    ),
    path(
        "library/generator/preview/",
        library_views.GeneratorPreviewView.as_view(),
        name="library-generator-preview",
    ),
    path(
        "library/manipulation-types/",
        library_views.ManipulationTypeListCreateView.as_view(),
        name="library-manipulation-list",
    ),
    # Study set-up and monitoring
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
    # The participant flow as JSON
    path(
        "participate/studies/<slug:slug>/",
        participant_views.StudyPublicView.as_view(),
        name="participate-study",
    ),
    path(
        "participate/studies/<slug:slug>/sessions/",
        participant_views.SessionStartView.as_view(),
        name="participate-start",
    ),
    path(
        "participate/studies/<slug:slug>/decline/",
        participant_views.SessionDeclineView.as_view(),
        name="participate-decline",
    ),
    path(
        "participate/sessions/<str:token>/",
        participant_views.SessionStateView.as_view(),
        name="participate-session",
    ),
    path(
        "participate/sessions/<str:token>/begin/",
        participant_views.SessionBeginView.as_view(),
        name="participate-begin",
    ),
    path(
        "participate/sessions/<str:token>/trial/",
        participant_views.CurrentTrialView.as_view(),
        name="participate-trial",
    ),
    path(
        "participate/sessions/<str:token>/responses/",
        participant_views.ResponseSubmitView.as_view(),
        name="participate-respond",
    ),
    path(
        "participate/sessions/<str:token>/finish/",
        participant_views.SessionFinishView.as_view(),
        name="participate-finish",
    ),
    path(
        "participate/sessions/<str:token>/withdraw/",
        participant_views.SessionWithdrawView.as_view(),
        name="participate-withdraw",
    ),
    # Results
    path(
        "studies/<slug:slug>/results/",
        results_views.StudyResultsView.as_view(),
        name="study-results",
    ),
    path(
        "studies/<slug:slug>/results/compute/",
        results_views.StudyResultsComputeView.as_view(),
        name="study-results-compute",
    ),
    path(
        "studies/<slug:slug>/results/participants/",
        results_views.StudyResultsDecisionsView.as_view(),
        name="study-results-participants",
    ),
    path(
        "studies/<slug:slug>/results/participants/<int:pk>/decision/",
        results_views.StudyResultsDecisionView.as_view(),
        name="study-results-decision",
    ),
    path(
        "studies/<slug:slug>/results/compare/<slug:other>/",
        results_views.StudyComparisonView.as_view(),
        name="study-results-compare",
    ),
    path(
        "studies/<slug:slug>/results/exports/",
        results_views.StudyResultsExportView.as_view(),
        name="study-results-export",
    ),
    # Model evaluation
    path(
        "studies/<slug:slug>/models/answers/",
        model_eval_views.ModelAnswersImportView.as_view(),
        name="study-model-answers-import",
    ),
    path(
        "studies/<slug:slug>/models/results/",
        model_eval_views.ModelEvalResultsView.as_view(),
        name="study-model-results",
    ),
    path(
        "studies/<slug:slug>/models/prompts/",
        model_eval_views.ModelPromptsView.as_view(),
        name="study-model-prompts",
    ),
    path(
        "studies/<slug:slug>/models/export/",
        model_eval_views.ModelEvalExportView.as_view(),
        name="study-model-export",
    ),
]
