from django.urls import path

from core.api import views

urlpatterns = [
    # /api/v1/ itself: an index of links rather than a 404.
    path("", views.ApiIndexView.as_view(), name="index"),
    path("me/", views.MeView.as_view(), name="me"),
    path("tokens/", views.TokenListCreateView.as_view(), name="token-list"),
    path("tokens/<int:pk>/", views.TokenRevokeView.as_view(), name="token-revoke"),
    path("jobs/", views.JobListView.as_view(), name="job-list"),
    path("jobs/<int:pk>/", views.JobDetailView.as_view(), name="job-detail"),
    path("jobs/<int:pk>/download/", views.JobDownloadView.as_view(), name="job-download"),
]
