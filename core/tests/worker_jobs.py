"""Slow job kinds for the tests that kill a real worker mid-job.

Worker processes started by those tests load this module with `--include`; it is not a
test module itself.
"""

import os
import time

from core.services.jobs import job_handler


def _slow(job, report):
    steps = int(job.params.get("steps", 10))
    for step in range(steps):
        report(step / steps, f"Step {step + 1} of {steps}")
        time.sleep(float(job.params.get("pause", 0.2)))
    return {"pid": os.getpid()}


job_handler("test.worker_slow_repeatable", repeatable=True)(_slow)
job_handler("test.worker_slow_once")(_slow)
