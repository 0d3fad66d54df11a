"""django-csp's middleware, with the site's policy built once per process.

django-csp builds the Content-Security-Policy header from the settings on every response,
and its report-only twin too: 0.03-0.04 ms of CPU per request, about a third of what the
whole middleware stack costs a request (measured around a view that returns a constant).
The header is the same for every response that
neither changes the policy (``_csp_update``, ``_csp_replace``, ``_csp_config`` and their
report-only twins, set by CspAdjustMiddleware or a view) nor used ``request.csp_nonce``:
those get the header built once; all others go through django-csp as before. The library
offers no cache of its own (its policy may depend on the request), hence this subclass.
"""

from __future__ import annotations

from dataclasses import asdict

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

# The response attributes through which a view or a middleware changes the policy.
_CHANGES = (
    "_csp_exempt",
    "_csp_exempt_ro",
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
)

# (policy, report-only policy) of an unchanged response, built at its first use; replaced
# whole (never changed in place), so a thread that read it holds a complete pair.
_plain: tuple[str, str] | None = None


@receiver(setting_changed)
def _forget_policy(*, setting, **kwargs):
    global _plain
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _plain = None


class CachedPolicyCSPMiddleware(CSPMiddleware):
    def process_response(self, request, response):
        if (
            getattr(request, "_csp_nonce", None) is not None
            or any(getattr(response, name, None) is not None for name in _CHANGES)
            or HEADER in response
            or HEADER_REPORT_ONLY in response
        ):
            # A nonce, a change of the policy, or a header of the view's own (a report's
            # stricter policy): django-csp as it is.
            return super().process_response(request, response)
        global _plain
        plain = _plain
        if plain is None:
            parts = self.get_policy_parts(request=request, response=response)
            parts_ro = self.get_policy_parts(request=request, response=response, report_only=True)
            plain = (
                build_policy(**asdict(parts)),
                build_policy(**asdict(parts_ro), report_only=True),
            )
            _plain = plain
        # django-csp's own conditions for writing a header at all: debug error pages and
        # excluded prefixes go without.
        if settings.DEBUG and response.status_code in (404, 500):
            return response
        policy, policy_ro = plain
        for header, value, setting in (
            (HEADER, policy, "CONTENT_SECURITY_POLICY"),
            (HEADER_REPORT_ONLY, policy_ro, "CONTENT_SECURITY_POLICY_REPORT_ONLY"),
        ):
            prefixes = (getattr(settings, setting, None) or {}).get("EXCLUDE_URL_PREFIXES") or ()
            if value and not request.path_info.startswith(tuple(prefixes)):
                response[header] = value
        # As django-csp does: a nonce asked for once the header is written is an error.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response
