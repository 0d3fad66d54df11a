"""The studies app's REST API, mounted under /api/v1/ in the "api" namespace.

The participant flow as JSON (no account; the session token is in the path) lives under
participate/ with names prefixed "participate-"; the chart library under library/ with names
prefixed "library-"; everything about one study under studies/<slug>/.
"""

from django.urls import path

from studies.api import (
    library,
    model_eval,
    participant,
    planner,
    results,
    study,
    study_languages,
)

LIBRARY_SET = "library/chart-sets/<slug:slug>/"

urlpatterns = [
    # The participant flow as JSON first: its requests are the most frequent, and URLs
    # resolve in order.
    path(
        "participate/studies/<slug:slug>/",
        participant.StudyPublicView.as_view(),
        name="participate-study",
    ),
    path(
        "participate/studies/<slug:slug>/sessions/",
        participant.SessionStartView.as_view(),
        name="participate-start",
    ),
    path(
        "participate/studies/<slug:slug>/decline/",
        participant.SessionDeclineView.as_view(),
        name="participate-decline",
    ),
    path(
        "participate/sessions/<str:token>/",
        participant.SessionStateView.as_view(),
        name="participate-session",
    ),
    path(
        "participate/sessions/<str:token>/begin/",
        participant.SessionBeginView.as_view(),
        name="participate-begin",
    ),
    path(
        "participate/sessions/<str:token>/trial/",
        participant.CurrentTrialView.as_view(),
        name="participate-trial",
    ),
    path(
        "participate/sessions/<str:token>/responses/",
        participant.ResponseSubmitView.as_view(),
        name="participate-respond",
    ),
    path(
        "participate/sessions/<str:token>/finish/",
        participant.SessionFinishView.as_view(),
        name="participate-finish",
    ),
    path(
        "participate/sessions/<str:token>/withdraw/",
        participant.SessionWithdrawView.as_view(),
        name="participate-withdraw",
    ),
    # Chart library
    path(
        "library/chart-sets/",
        library.ChartSetListCreateView.as_view(),
        name="library-chartset-list",
    ),
    path(
        "library/chart-sets/import/",
        library.ChartSetImportView.as_view(),
        name="library-chartset-import",
    ),
    path(LIBRARY_SET, library.ChartSetDetailView.as_view(), name="library-chartset-detail"),
    path(
        LIBRARY_SET + "export/",
        library.ChartSetExportView.as_view(),
        name="library-chartset-export",
    ),
    path(
        LIBRARY_SET + "generate/",
        library.ChartSetGenerateView.as_view(),
        name="library-chartset-generate",
    ),
    path(LIBRARY_SET + "groups/", library.GroupListView.as_view(), name="library-group-list"),
    path(LIBRARY_SET + "pairs/", library.PairListView.as_view(), name="library-pair-list"),
    path(
        LIBRARY_SET + "pairs/<str:code>/",
        library.PairDetailView.as_view(),
        name="library-pair-detail",
    ),
    path(
        LIBRARY_SET + "charts/<str:chart_id>/",
        library.ChartDetailView.as_view(),
        name="library-chart-detail",
    ),
    path(
        LIBRARY_SET + "charts/<str:chart_id>/image/",
        library.ChartImageView.as_view(),
        name="library-chart-image",
    ),
    path(
        "library/generator/preview/",
        library.GeneratorPreviewView.as_view(),
        name="library-generator-preview",
    ),
    path(
        "library/manipulation-types/",
        library.ManipulationTypeListCreateView.as_view(),
        name="library-manipulation-list",
    ),
    # Study set-up and monitoring
    path("studies/", study.StudyListCreateView.as_view(), name="study-list"),
    path("studies/<slug:slug>/", study.StudyDetailView.as_view(), name="study-detail"),
    path("studies/<slug:slug>/status/", study.StudyStatusView.as_view(), name="study-status"),
    path("studies/<slug:slug>/plan/", planner.StudyPlanView.as_view(), name="study-plan"),
    path(
        "studies/<slug:slug>/readiness/",
        study.StudyReadinessView.as_view(),
        name="study-readiness",
    ),
    path(
        "studies/<slug:slug>/starter-texts/",
        study.StudyStarterTextsView.as_view(),
        name="study-starter-texts",
    ),
    path("studies/<slug:slug>/pairs/", study.StudyPairsView.as_view(), name="study-pairs"),
    path(
        "studies/<slug:slug>/translations/<str:language>/",
        study_languages.StudyTranslationView.as_view(),
        name="study-translation",
    ),
    path("studies/<slug:slug>/video/", study.StudyVideoView.as_view(), name="study-video"),
    path(
        "studies/<slug:slug>/attention-checks/",
        study.AttentionCheckListCreateView.as_view(),
        name="study-checks",
    ),
    path(
        "studies/<slug:slug>/attention-checks/<int:pk>/",
        study.AttentionCheckDetailView.as_view(),
        name="study-check-detail",
    ),
    path("studies/<slug:slug>/monitor/", study.StudyMonitorView.as_view(), name="study-monitor"),
    path(
        "studies/<slug:slug>/sessions/", study.StudySessionListView.as_view(), name="study-sessions"
    ),
    path(
        "studies/<slug:slug>/sessions/<int:pk>/",
        study.StudySessionDetailView.as_view(),
        name="study-session-detail",
    ),
    path(
        "studies/<slug:slug>/sessions/<int:pk>/release/",
        study.StudySessionReleaseView.as_view(),
        name="study-session-release",
    ),
    path("studies/<slug:slug>/preview/", study.StudyPreviewView.as_view(), name="study-preview"),
    path(
        "studies/<slug:slug>/clear-test-sessions/",
        study.StudyTestSessionsClearView.as_view(),
        name="study-clear-tests",
    ),
    # Results
    path(
        "studies/<slug:slug>/results/",
        results.StudyResultsView.as_view(),
        name="study-results",
    ),
    path(
        "studies/<slug:slug>/results/compute/",
        results.StudyResultsComputeView.as_view(),
        name="study-results-compute",
    ),
    path(
        "studies/<slug:slug>/results/participants/",
        results.StudyResultsDecisionsView.as_view(),
        name="study-results-participants",
    ),
    path(
        "studies/<slug:slug>/results/participants/<int:pk>/decision/",
        results.StudyResultsDecisionView.as_view(),
        name="study-results-decision",
    ),
    path(
        "studies/<slug:slug>/results/compare/<slug:other>/",
        results.StudyComparisonView.as_view(),
        name="study-results-compare",
    ),
    path(
        "studies/<slug:slug>/results/exports/",
        results.StudyResultsExportView.as_view(),
        name="study-results-export",
    ),
    # Model evaluation
    path(
        "studies/<slug:slug>/models/answers/",
        model_eval.ModelAnswersImportView.as_view(),
        name="study-model-answers-import",
    ),
    path(
        "studies/<slug:slug>/models/results/",
        model_eval.ModelEvalResultsView.as_view(),
        name="study-model-results",
    ),
    path(
        "studies/<slug:slug>/models/prompts/",
        model_eval.ModelPromptsView.as_view(),
        name="study-model-prompts",
    ),
    path(
        "studies/<slug:slug>/models/export/",
        model_eval.ModelEvalExportView.as_view(),
        name="study-model-export",
    ),
]
