from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Chartroom core"

    def ready(self):
        # core.tasks registers the core.ping job kind (how CI proves a real worker ran a
        # job); each app's AppConfig.ready() registers its own kinds the same way.
        from core import checks, local_jobs, tasks  # noqa: F401  checks registers itself
        from core.services.jobs import job_runner_register

        # Looked up on each call, so a test that replaces run_job.delay is obeyed.
        job_runner_register("celery", lambda *, job_id: tasks.run_job.delay(job_id))
        job_runner_register("local", local_jobs.local_job_submit)
