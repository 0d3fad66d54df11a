from django.urls import path

from studies import views

app_name = "studies"

urlpatterns = [
    path("new/", views.study_create, name="create"),
]
