from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from core.services.tokens import api_token_authenticate


class ApiTokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` against hashed, revocable ApiToken rows."""

    def authenticate_credentials(self, key):
        token = api_token_authenticate(key=key)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid or revoked API token."))
        return (token.user, token)
