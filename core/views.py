import mimetypes
import sys

from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import RequestDataTooBig, SuspiciousFileOperation, TooManyFieldsSent
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.views.csrf import csrf_failure as django_csrf_failure
from django.views.decorators.cache import never_cache
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_POST,
    require_safe,
)

from config.storage_settings import IMMUTABLE
from core.api.errors import json_error, too_large_message, too_many_fields_message
from core.debug_access import shows_debug_pages
from core.decorators import researcher_required
from core.health import broker_status, database_status, storage_status
from core.languages import link_language, reader_language, speaking
from core.middleware import is_database_unavailable, unavailable_response
from core.models import ApiToken
from core.services.tokens import api_token_create, api_token_revoke


def home(request):
    # The researcher's home (config.views) lists work from both apps, so core only redirects to it.
    if not request.user.is_authenticated:
        return render(request, "core/landing.html")
    if request.user.is_researcher:
        return redirect("researcher-home")
    return redirect("annotation:home")


_sign_in = auth_views.LoginView.as_view(redirect_authenticated_user=True)


def login(request):
    """The sign-in page, in the browser's language: annotators reach it before any project
    can say which language they read."""
    with speaking(request, reader_language(request)):
        response = _sign_in(request)
        if hasattr(response, "render"):
            response.render()  # inside the language: a TemplateResponse renders late otherwise
    patch_vary_headers(response, ["Accept-Language"])
    return response


def locked_out(request, original_response=None, credentials=None):
    """The sign-in lockout page (AXES_LOCKOUT_CALLABLE) in the sign-in page's language:
    axes renders it in its middleware, after the sign-in view's language has ended."""
    context = {
        "failure_limit": get_failure_limit(request, credentials),
        "username": get_client_username(request, credentials) or "",
        "cooloff_timedelta": get_cool_off(request),
    }
    with speaking(request, reader_language(request)):
        response = render(
            request,
            settings.AXES_LOCKOUT_TEMPLATE,
            context,
            status=settings.AXES_HTTP_RESPONSE_CODE,
        )
    patch_vary_headers(response, ["Accept-Language"])
    cool_off = context["cooloff_timedelta"]
    if cool_off:  # when a client may try again, for scripts and proxies that read it
        response["Retry-After"] = str(max(1, int(cool_off.total_seconds())))
    return response


@researcher_required
@require_http_methods(["GET", "POST"])
def tokens(request):
    # A created key is handed to the page after a redirect, so that reloading the page
    # that shows it does not post the form again (and create a second token); it is
    # taken out of the session on that one showing.
    new_key = request.session.pop(NEW_KEY_SESSION, None) if request.method == "GET" else None
    name = ""
    if request.method == "POST":
        name = request.POST.get("name", "").strip()
        if not name:
            messages.error(request, "Give the token a name, so you can tell it apart later.")
        elif len(name) > 100:
            messages.error(request, "Token names are at most 100 characters.")
        else:
            issued = api_token_create(user=request.user, name=name)
            request.session[NEW_KEY_SESSION] = issued.key
            messages.success(
                request, f"Token “{issued.token.name}” created. Copy it now: it is shown once."
            )
            return redirect("tokens")
    token_list = ApiToken.objects.filter(user=request.user)
    context = {"tokens": token_list, "new_key": new_key, "name": name}
    return render(request, "core/tokens.html", context)


NEW_KEY_SESSION = "chartroom:new-api-key"


@researcher_required
@require_POST
def token_revoke(request, pk: int):
    if api_token_revoke(user=request.user, token_id=pk):
        messages.success(request, "Token revoked. Programs using it can no longer sign in.")
    else:
        messages.error(request, "That token does not exist or was already revoked.")
    return redirect("tokens")


@never_cache
@require_GET
def healthz(request):
    database = database_status()
    broker = broker_status()
    storage = storage_status()
    body = {
        "status": "ok" if database["ok"] and broker["ok"] and storage["ok"] else "degraded",
        "database": database,
        "broker": broker,
        "storage": storage,
    }
    if not database["ok"]:
        body["status"] = "down"
    return JsonResponse(body, status=200 if database["ok"] else 503)


# Where participants' pages live (config/urls.py mounts them here).
PARTICIPANT_PREFIX = "/s/"


def _wants_json(request) -> bool:
    return request.path.startswith("/api/") or "application/json" in request.headers.get(
        "Accept", ""
    )


def page_not_found(request, exception=None):
    if _wants_json(request):
        return json_error(404, "Not found.")
    if request.path.startswith(PARTICIPANT_PREFIX):
        # A participant's mistyped link (a token cut short, say) never reached a study:
        # answer in the language the link or the browser asks for.
        with translation.override(link_language(request)):
            return participant_link_broken(request)
    return render(request, "404.html", status=404)


def participant_link_broken(request):
    """The participants' 404: their own plain page, no researcher navigation or sign-in.

    Every participant address that leads nowhere answers with it: a token or study
    link mistyped or cut short, whether or not it matched a URL pattern.
    """
    response = render(
        request,
        "participate/message.html",
        {
            "heading": _("This link does not work"),
            "text": _(
                "Please check that the address is complete, exactly as you were given it. "
                "If it still does not work, please contact the researcher who sent you the link."
            ),
        },
        status=404,
    )
    # As on every participant page: the address may hold a session's token.
    response["Referrer-Policy"] = "no-referrer"
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


def permission_denied(request, exception=None):
    if _wants_json(request):
        return json_error(403, str(exception) or "You do not have permission to do this.")
    return render(request, "403.html", {"reason": str(exception or "")}, status=403)


def bad_request(request, exception=None):
    if isinstance(exception, RequestDataTooBig):
        return request_too_large(request)
    if isinstance(exception, TooManyFieldsSent):
        if _wants_json(request):
            return json_error(400, too_many_fields_message())
        return render(request, "refused.html", {"reason": too_many_fields_message()}, status=400)
    if _wants_json(request):
        return json_error(400, "Bad request.")
    return render(request, "400.html", status=400)


def request_too_large(request):
    """A body over DATA_UPLOAD_MAX_MEMORY_SIZE: 413 with the limit, not a bare "Bad request"."""
    message = too_large_message()
    if _wants_json(request):
        return json_error(413, message)
    return render(request, "400.html", {"reason": message}, status=413)


def csrf_failure(request, reason=""):
    """CSRF_FAILURE_VIEW: what to do about a stale form, in words a person can act on.

    Django's own page explains the check to developers (with DEBUG on, in detail); staff
    keep it while DEBUG is on, as with the other debug pages (core/debug_pages.py).
    """
    if shows_debug_pages(request):
        return django_csrf_failure(request, reason)
    with speaking(request, reader_language(request)):
        message = _(
            "This form has expired, or your browser did not send the cookie it needs. Go "
            "back, reload the page and send the form again. If it happens again, allow "
            "cookies for this site."
        )
        if _wants_json(request):
            return json_error(403, message)
        heading = _("This form could not be sent")
        context = {"heading": heading, "reason": message}
        return render(request, "403.html", context, status=403)


def server_error(request):
    # Django calls this inside its except block, so the exception is at hand. A database
    # outage that surfaced outside a view (a middleware reading the session) is a 503 too.
    if is_database_unavailable(sys.exc_info()[1]):
        return unavailable_response(request)
    return server_error_page(request)


def server_error_page(request):
    """The 500 answer itself (also core.debug_pages's, while DEBUG is on)."""
    if _wants_json(request):
        return json_error(500, "Something went wrong on our side. It has been logged.")
    return render(request, "500.html", status=500)


@require_safe
def media(request, path: str):
    """Public media (chart images), read through the default storage at request time.

    With a bucket (CHARTROOM_STORAGE=s3) pages link to the bucket's own URLs; this view then
    only answers old /media/ links, from the same bucket.
    """
    try:
        if not default_storage.exists(path):
            raise Http404("No such file.")
        handle = default_storage.open(path, "rb")
    except (SuspiciousFileOperation, OSError) as exc:  # outside the folder, or a folder
        raise Http404("No such file.") from exc
    response = FileResponse(handle, content_type=mimetypes.guess_type(path)[0])
    # Stored names are content hashes, so a file at a URL never changes.
    response["Cache-Control"] = IMMUTABLE
    return response


@login_required
def profile_redirect(request):
    return redirect("home")
