from django.urls import path

from studies.api import model_eval_views as views

urlpatterns = [
    path(
        "studies/<slug:slug>/models/answers/",
        views.ModelAnswersImportView.as_view(),
        name="study-model-answers-import",
    ),
    path(
        "studies/<slug:slug>/models/results/",
        views.ModelEvalResultsView.as_view(),
        name="study-model-results",
    ),
    path(
        "studies/<slug:slug>/models/prompts/",
        views.ModelPromptsView.as_view(),
        name="study-model-prompts",
    ),
    path(
        "studies/<slug:slug>/models/export/",
        views.ModelEvalExportView.as_view(),
        name="study-model-export",
    ),
]
