from django.urls import path

from annotation.api import views

urlpatterns = [
    path("projects/", views.ProjectListCreateView.as_view(), name="project-list"),
    path("projects/<slug:slug>/", views.ProjectDetailView.as_view(), name="project-detail"),
    path(
        "annotator/projects/", views.JoinedProjectListView.as_view(), name="annotator-project-list"
    ),
]
