"""Study set-up and monitoring pages."""

from django.urls import path

from studies.views import study as views

urlpatterns = [
    path("new/", views.study_create, name="create"),
]
