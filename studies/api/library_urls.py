"""Chart library API under /api/v1/library/ (namespace "api", names prefixed "library-")."""

from django.urls import path

from studies.api import library_views as views

SET = "library/chart-sets/<slug:slug>/"

urlpatterns = [
    path(
        "library/chart-sets/", views.ChartSetListCreateView.as_view(), name="library-chartset-list"
    ),
    path(
        "library/chart-sets/import/",
        views.ChartSetImportView.as_view(),
        name="library-chartset-import",
    ),
    path(SET, views.ChartSetDetailView.as_view(), name="library-chartset-detail"),
    path(SET + "export/", views.ChartSetExportView.as_view(), name="library-chartset-export"),
    path(SET + "generate/", views.ChartSetGenerateView.as_view(), name="library-chartset-generate"),
    path(SET + "groups/", views.GroupListView.as_view(), name="library-group-list"),
    path(SET + "pairs/", views.PairListView.as_view(), name="library-pair-list"),
    path(SET + "pairs/<str:code>/", views.PairDetailView.as_view(), name="library-pair-detail"),
    path(
        SET + "charts/<str:chart_id>/", views.ChartDetailView.as_view(), name="library-chart-detail"
    ),
    path(
        SET + "charts/<str:chart_id>/image/",
        views.ChartImageView.as_view(),
        name="library-chart-image",
    ),
    path(
        "library/generator/preview/",
        views.GeneratorPreviewView.as_view(),
        name="library-generator-preview",
    ),
    path(
        "library/manipulation-types/",
        views.ManipulationTypeListCreateView.as_view(),
        name="library-manipulation-list",
    ),
]
