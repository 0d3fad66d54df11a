from django.contrib.auth import views as auth_views
from django.urls import path

from core import views

urlpatterns = [
    path("", views.home, name="home"),
    path("researcher/tokens/", views.tokens, name="tokens"),
    path("researcher/tokens/<int:pk>/revoke/", views.token_revoke, name="token-revoke"),
    path("login/", views.login, name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/profile/", views.profile_redirect),
    path("healthz", views.healthz, name="healthz"),
]
