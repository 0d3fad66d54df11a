from annotation import jobs_imports, jobs_reports  # noqa: F401
