import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

from django.conf import settings  # noqa: E402  (after the app is set up)

if settings.CHARTROOM_JOB_RUNNER == "local":
    # Without a broker this process runs jobs on its own threads, and sweeps stale ones.
    from core.local_jobs import local_jobs_start

    local_jobs_start()
