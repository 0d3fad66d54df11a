"""Role checks for HTML views."""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect

from core.errors import ServiceError


def _role_required(check, message):
    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not check(request.user):
                raise PermissionDenied(message)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


researcher_required = _role_required(lambda u: u.is_researcher, "This page is for researchers.")
annotator_required = _role_required(lambda u: u.is_annotator, "This page is for annotators.")


def refusal_flashed(url_name: str, *kwarg_names: str):
    """For a form post: a ServiceError from the view is flashed, and the person is sent to
    `url_name` (reversed with the named URL arguments of the view) to try again.

    What a page does with a refusal it does not handle itself is ServiceErrorMiddleware's.
    """

    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            try:
                return view(request, *args, **kwargs)
            except ServiceError as exc:
                messages.error(request, exc.message)
                return redirect(url_name, **{name: kwargs[name] for name in kwarg_names})

        return wrapped

    return decorator
