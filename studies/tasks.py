from studies import (
    jobs_library,  # noqa: F401
    jobs_results,  # noqa: F401
)
