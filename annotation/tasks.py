from annotation import jobs_reports  # noqa: F401
