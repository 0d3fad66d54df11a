"""How many consents and declines one address may send into one study (core.security says why)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from core.security import arrivals_throttled
from studies.models import Study
from studies.services.sessions.errors import TooManyArrivals


def arrival_check(*, request, study: Study) -> None:
    """Count this consent or decline; TooManyArrivals past the limit (nothing is stored)."""
    throttled = arrivals_throttled(request, study.pk)
    if throttled is not None:
        raise TooManyArrivals(
            _(
                "Many people have started this study from your network within the last hour. "
                "Please try again in %(wait)s."
            )
            % {"wait": throttled.wait},
            retry_after=throttled.retry_after,
        )
