"""The participant flow as JSON (no account; the session token is in the path)."""

from django.urls import path

from studies.api import participant_views as views

urlpatterns = [
    path(
        "participate/studies/<slug:slug>/",
        views.StudyPublicView.as_view(),
        name="participate-study",
    ),
    path(
        "participate/studies/<slug:slug>/sessions/",
        views.SessionStartView.as_view(),
        name="participate-start",
    ),
    path(
        "participate/studies/<slug:slug>/decline/",
        views.SessionDeclineView.as_view(),
        name="participate-decline",
    ),
    path(
        "participate/sessions/<str:token>/",
        views.SessionStateView.as_view(),
        name="participate-session",
    ),
    path(
        "participate/sessions/<str:token>/begin/",
        views.SessionBeginView.as_view(),
        name="participate-begin",
    ),
    path(
        "participate/sessions/<str:token>/trial/",
        views.CurrentTrialView.as_view(),
        name="participate-trial",
    ),
    path(
        "participate/sessions/<str:token>/responses/",
        views.ResponseSubmitView.as_view(),
        name="participate-respond",
    ),
    path(
        "participate/sessions/<str:token>/finish/",
        views.SessionFinishView.as_view(),
        name="participate-finish",
    ),
    path(
        "participate/sessions/<str:token>/withdraw/",
        views.SessionWithdrawView.as_view(),
        name="participate-withdraw",
    ),
]
