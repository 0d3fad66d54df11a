"""The login throttle's authentication backend."""

from axes.backends import AxesStandaloneBackend


class LoginThrottleBackend(AxesStandaloneBackend):
    """django-axes' backend, tolerant of sign-ins without a request.

    Every sign-in over HTTP (the login page, the admin, the browsable API) passes its
    request and is throttled. Calls without one (Django's test client `login()`, a shell)
    cannot be brute-forced from outside, and axes would refuse them with an error.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
