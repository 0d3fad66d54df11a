"""Chart library pages (sets, groups, pairs, import, generator), under /studies/library/."""

from django.urls import path

from studies.views import library, library_generator, library_import

urlpatterns = [
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
]
