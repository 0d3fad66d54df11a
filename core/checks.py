"""System checks for a deployment on several machines (CHARTROOM_STORAGE=s3).

With shared buckets the nodes are meant to be interchangeable; what each process would
otherwise keep for itself is named here, at start-up, rather than found out in production.
"""

from django.conf import settings
from django.core.checks import Warning, register


@register(deploy=True)
def shared_state_check(app_configs, **kwargs):
    if settings.CHARTROOM_STORAGE != "s3":
        return []
    found = []
    if not settings.CACHE_URL:
        found.append(
            Warning(
                "Several nodes (CHARTROOM_STORAGE=s3) without CACHE_URL: each process keeps its "
                "own cache, so the sign-up limit counts per process and reports are computed "
                "once per process.",
                hint="Set CACHE_URL=redis://... the same on every node.",
                id="chartroom.W001",
            )
        )
    if not settings.CELERY_BROKER_URL:
        found.append(
            Warning(
                "Several nodes (CHARTROOM_STORAGE=s3) without CELERY_BROKER_URL: jobs run on "
                "threads of whichever web node received them.",
                hint="Set CELERY_BROKER_URL=redis://... and run celery workers.",
                id="chartroom.W002",
            )
        )
    return found
