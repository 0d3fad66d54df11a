"""The participant's way through a study (no account; a session token)."""

app_name = "participate"

urlpatterns = []
