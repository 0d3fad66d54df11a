import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()

# After the apps are loaded: production refuses to serve with a published demo password.
from core.security import refuse_demo_passwords_in_production  # noqa: E402

refuse_demo_passwords_in_production()
