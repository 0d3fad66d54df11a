import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
from core.whole_bodies import WholeBodies  # noqa: E402 - after DJANGO_SETTINGS_MODULE

# Each in-memory response handed to the server as one piece (core/whole_bodies.py says why).
application = WholeBodies(get_wsgi_application())

# After the apps are loaded: production refuses to serve with a published demo password.
from core.security import refuse_demo_passwords_in_production  # noqa: E402

refuse_demo_passwords_in_production()

from django.conf import settings  # noqa: E402  (after the app is set up)

from core.media_files import public_media_files  # noqa: E402

# Chart images answered before Django (core/media_files.py says why).
application = public_media_files(application)

if settings.CHARTROOM_JOB_RUNNER == "local":
    # Without a broker this process runs jobs on its own threads, and sweeps stale ones.
    from core.local_jobs import local_jobs_start

    local_jobs_start()
