from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Chartroom core"

    def ready(self):
        # core.tasks registers the core.ping job kind (how CI proves a real worker ran a
        # job); each app's AppConfig.ready() registers its own kinds the same way.
        from core import tasks  # noqa: F401
