from django.urls import path

from annotation import views

app_name = "annotation"

urlpatterns = [
    path("", views.home, name="home"),
    path("join/<str:code>/", views.join, name="join"),
    path("projects/new/", views.project_new, name="project-create"),
]
