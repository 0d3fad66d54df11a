"""Role checks for HTML views."""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied


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
