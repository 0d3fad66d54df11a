from django.urls import path

from studies.api import views

urlpatterns = [
    path("studies/", views.StudyListCreateView.as_view(), name="study-list"),
    path("studies/<slug:slug>/", views.StudyDetailView.as_view(), name="study-detail"),
]
