"""The participant's way through a study (no account; a session token)."""

from django.urls import path, register_converter

from studies.views import participant as views
from studies.views import participant_entry as entry


class TokenConverter:
    # Session tokens are 43 URL-safe characters; anything else is not a session.
    regex = "[A-Za-z0-9_-]{20,64}"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(TokenConverter, "token")

app_name = "participate"

urlpatterns = [
    path("p/<token:token>/", views.session_page, name="session"),
    path("p/<token:token>/begin/", views.begin, name="begin"),
    path("p/<token:token>/answer/", views.answer, name="answer"),
    path("p/<token:token>/finish/", views.finish, name="finish"),
    path("p/<token:token>/withdraw/", views.withdraw, name="withdraw"),
    path("<slug:slug>/", entry.welcome, name="welcome"),
    path("<slug:slug>/consent/", entry.consent, name="consent"),
    path("<slug:slug>/declined/", entry.declined, name="declined"),
    path("<slug:slug>/device/", entry.device, name="device"),
]
