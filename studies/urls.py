"""Researcher pages of the studies app (under /studies/): the chart library, study set-up and
monitoring, results and model evaluation. The participant's pages are in participant_urls."""

from django.urls import path

from studies.views import (
    library,
    library_generator,
    library_import,
    model_eval,
    planner,
    results,
    study,
    study_languages,
)

app_name = "studies"

urlpatterns = [
    # Chart library: sets, groups, pairs, import, generator (studies.views.library*)
    path("library/", library.library, name="library"),
    path("library/new/", library.chartset_new, name="chartset-create"),
    path("library/import/", library_import.chartset_import_page, name="chartset-import"),
    path(
        "library/import/jobs/<int:job_id>/",
        library_import.import_status,
        name="chartset-import-status",
    ),
    path("library/generator/", library_generator.generator, name="generator"),
    path("library/manipulations/", library.manipulation_list, name="manipulation-list"),
    path("library/<slug:slug>/", library.chartset_detail, name="chartset-detail"),
    path("library/<slug:slug>/delete/", library.chartset_remove, name="chartset-delete"),
    path("library/<slug:slug>/export/", library.chartset_export, name="chartset-export"),
    path("library/<slug:slug>/pairs/<str:code>/", library.pair_detail, name="pair-detail"),
    path("library/<slug:slug>/pairs/<str:code>/edit/", library.question_edit, name="question-edit"),
    path("library/<slug:slug>/pairs/<str:code>/delete/", library.pair_remove, name="pair-delete"),
    path(
        "library/<slug:slug>/charts/<str:chart_id>/image/",
        library.chart_image,
        name="chart-image",
    ),
    path(
        "library/<slug:slug>/charts/<str:chart_id>/preview/",
        library.chart_preview,
        name="chart-preview",
    ),
    # Study set-up and monitoring (studies.views.study)
    path("new/", study.study_create, name="create"),
    path("study/", study.study_list, name="list"),
    path("study/<slug:slug>/", study.study_detail, name="detail"),
    path("study/<slug:slug>/edit/", study.study_edit, name="edit"),
    path("study/<slug:slug>/video/remove/", study.study_video_remove, name="video-remove"),
    path("study/<slug:slug>/planner/", planner.study_planner, name="planner"),
    path("study/<slug:slug>/pairs/", study.study_pairs, name="pairs"),
    path("study/<slug:slug>/checks/", study.study_checks, name="checks"),
    path("study/<slug:slug>/languages/", study_languages.study_languages, name="languages"),
    path(
        "study/<slug:slug>/checks/<int:pk>/delete/", study.study_check_delete, name="check-delete"
    ),
    path("study/<slug:slug>/status/", study.study_status, name="status"),
    path("study/<slug:slug>/preview/", study.study_preview, name="preview"),
    path("study/<slug:slug>/clear-test-sessions/", study.study_clear_tests, name="clear-tests"),
    path("study/<slug:slug>/participants/<int:pk>/", study.study_session, name="session"),
    path(
        "study/<slug:slug>/participants/<int:pk>/release/",
        study.study_session_release,
        name="session-release",
    ),
    # Results (studies.views.results)
    path("study/<slug:slug>/results/", results.study_results, name="results"),
    path("study/<slug:slug>/results/status/", results.study_results_status, name="results-status"),
    path(
        "study/<slug:slug>/results/compute/", results.study_results_compute, name="results-compute"
    ),
    path(
        "study/<slug:slug>/results/participants/<int:pk>/decision/",
        results.study_results_override,
        name="results-override",
    ),
    path("study/<slug:slug>/results/export/", results.study_results_export, name="results-export"),
    path(
        "study/<slug:slug>/results/download/<str:fmt>/",
        results.study_results_download,
        name="results-download",
    ),
    path(
        "study/<slug:slug>/results/exports/<int:job_id>/",
        results.study_results_job_download,
        name="results-job-download",
    ),
    # Model evaluation (studies.views.model_eval)
    path("study/<slug:slug>/models/", model_eval.study_models, name="models"),
    path("study/<slug:slug>/models/status/", model_eval.study_models_status, name="models-status"),
    path("study/<slug:slug>/models/delete/", model_eval.study_models_delete, name="models-delete"),
    path(
        "study/<slug:slug>/models/prompts.zip",
        model_eval.study_models_prompts,
        name="models-prompts",
    ),
    path(
        "study/<slug:slug>/models/analyses.zip",
        model_eval.study_models_export,
        name="models-export",
    ),
]
