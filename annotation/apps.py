from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Caption annotation"

    def ready(self):
        # The job modules register their handlers (core.services.jobs.job_handler) as
        # they load. Every process (web, worker, management command) sets Django up,
        # so the kinds are known wherever a job is created, run or swept.
        from annotation import jobs_imports, jobs_reports  # noqa: F401
