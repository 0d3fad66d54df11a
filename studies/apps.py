from django.apps import AppConfig


class StudiesConfig(AppConfig):
    name = "studies"
    verbose_name = "Chart studies"

    def ready(self):
        # The job modules register their handlers (core.services.jobs.job_handler) as
        # they load. Every process (web, worker, management command) sets Django up,
        # so the kinds are known wherever a job is created, run or swept.
        from studies import jobs_library, jobs_model_eval, jobs_results  # noqa: F401
