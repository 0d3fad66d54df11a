"""Study model evaluation pages (under /studies/study/<slug>/models/)."""

from django.urls import path

from studies.views import model_eval as views

urlpatterns = [
    path("study/<slug:slug>/models/", views.study_models, name="models"),
    path("study/<slug:slug>/models/delete/", views.study_models_delete, name="models-delete"),
    path("study/<slug:slug>/models/prompts.zip", views.study_models_prompts, name="models-prompts"),
    path("study/<slug:slug>/models/analyses.zip", views.study_models_export, name="models-export"),
]
