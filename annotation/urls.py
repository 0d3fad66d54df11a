from django.urls import path

from annotation.views import (
    annotator,
    onboarding,
    quality_annotator,
    quality_researcher,
    quality_rounds,
    reports,
    researcher,
)

app_name = "annotation"

urlpatterns = [
    path("", onboarding.home, name="home"),
    path("join/<str:code>/", onboarding.join, name="join"),
    # Annotators
    path("p/<slug:slug>/work/", annotator.work, name="work"),
    path("p/<slug:slug>/work/<int:pk>/submit/", annotator.work_submit, name="work-submit"),
    path("p/<slug:slug>/work/<int:pk>/skip/", annotator.skip, name="work-skip"),
    path("p/<slug:slug>/guidelines/", annotator.guidelines, name="guidelines"),
    # Qualification rounds and quality control (annotation.views.quality_*)
    path("p/<slug:slug>/qualify/", quality_annotator.overview, name="qualify"),
    path(
        "p/<slug:slug>/qualify/<int:position>/", quality_annotator.round_item, name="qualify-round"
    ),
    path(
        "p/<slug:slug>/qualify/<int:position>/start/", quality_annotator.start, name="qualify-start"
    ),
    path(
        "p/<slug:slug>/qualify/<int:position>/items/<int:index>/answer/",
        quality_annotator.round_answer,
        name="qualify-answer",
    ),
    path(
        "p/<slug:slug>/qualify/<int:position>/result/",
        quality_annotator.result,
        name="qualify-result",
    ),
    path(
        "p/<slug:slug>/qualify/<int:position>/review/",
        quality_annotator.review,
        name="qualify-review",
    ),
    path("projects/<slug:slug>/quality/", quality_researcher.dashboard, name="quality"),
    path(
        "projects/<slug:slug>/quality/settings/",
        quality_researcher.settings_edit,
        name="quality-settings",
    ),
    path(
        "projects/<slug:slug>/quality/rounds/new/",
        quality_researcher.round_new,
        name="quality-round-new",
    ),
    path(
        "projects/<slug:slug>/quality/rounds/<int:pk>/edit/",
        quality_rounds.round_edit,
        name="quality-round-edit",
    ),
    path(
        "projects/<slug:slug>/quality/rounds/<int:pk>/delete/",
        quality_rounds.round_delete_view,
        name="quality-round-delete",
    ),
    path(
        "projects/<slug:slug>/quality/rounds/<int:pk>/move/",
        quality_rounds.round_move_view,
        name="quality-round-move",
    ),
    path(
        "projects/<slug:slug>/quality/gold/reference/",
        quality_researcher.gold_reference,
        name="quality-gold-reference",
    ),
    path(
        "projects/<slug:slug>/quality/gold/<int:pk>/",
        quality_researcher.gold_edit,
        name="quality-gold",
    ),
    path(
        "projects/<slug:slug>/quality/annotators/<int:user_id>/",
        quality_researcher.annotator_detail,
        name="quality-annotator",
    ),
    path(
        "projects/<slug:slug>/quality/annotators/<int:user_id>/grant/",
        quality_researcher.attempt_grant_view,
        name="quality-grant",
    ),
    path(
        "projects/<slug:slug>/quality/annotators/<int:user_id>/decide/",
        quality_researcher.annotator_decide_view,
        name="quality-decide",
    ),
    # Researchers
    path("projects/new/", onboarding.project_new, name="project-create"),
    path("projects/<slug:slug>/", researcher.project_detail, name="project-detail"),
    path("projects/<slug:slug>/settings/", researcher.project_settings, name="project-settings"),
    path("projects/<slug:slug>/import/", researcher.project_import, name="project-import"),
    path("projects/<slug:slug>/imports/<int:pk>/", researcher.import_detail, name="import-detail"),
    path("projects/<slug:slug>/items/", researcher.project_items, name="project-items"),
    path("projects/<slug:slug>/items/<int:pk>/", researcher.item_detail, name="item-detail"),
    path(
        "projects/<slug:slug>/leases/<int:pk>/release/",
        researcher.lease_release,
        name="lease-release",
    ),
    path(
        "projects/<slug:slug>/leases/<int:pk>/reassign/",
        researcher.lease_reassign,
        name="lease-reassign",
    ),
    path("projects/<slug:slug>/report/", reports.project_report, name="project-report"),
    path(
        "projects/<slug:slug>/report/recompute/", reports.report_recompute, name="report-recompute"
    ),
    path("projects/<slug:slug>/report/tie-rule/", reports.report_tie_rule, name="report-tie-rule"),
    path("projects/<slug:slug>/report/figure.svg", reports.report_figure, name="report-figure"),
    path(
        "projects/<slug:slug>/report/tables/<slug:name>.csv",
        reports.report_table,
        name="report-table",
    ),
    path(
        "projects/<slug:slug>/export/<slug:fmt>/", reports.project_download, name="project-export"
    ),
]
