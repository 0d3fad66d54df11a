"""Every job kind is registered by django.setup() alone, in a process that imported nothing else.

A worker, the local job threads' sweep and a management command only set Django up: if a
kind were registered by importing some module for its side effect, a job of that kind
created elsewhere would fail there with "No handler is registered".
"""

import json
import os
import subprocess
import sys

from django.conf import settings

EXPECTED = {
    # kind: safe to run again from the start after its worker died
    "core.ping": True,
    "studies.library_import": False,
    "studies.library_generate": False,
    "studies.model_eval_report": True,
    "studies.results_compute": True,
    "studies.results_export": True,
    "annotation.captions_import": True,
    "annotation.report": True,
}

PROBE = """
import json, sys
import django
django.setup()
from core.services.jobs import job_kind_is_repeatable, registered_job_kinds
kinds = registered_job_kinds()
loaded = sorted(m for m in sys.modules if m.endswith(("jobs_library", "jobs_results", "jobs_imports", "jobs_reports")))
print(json.dumps({"kinds": {k: job_kind_is_repeatable(k) for k in kinds}, "loaded": loaded}))
"""


def probe() -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_django_setup_registers_every_job_kind_with_its_repeat_rule():
    found = probe()
    assert found["kinds"] == EXPECTED
    assert found["loaded"] == [
        "annotation.jobs_imports",
        "annotation.jobs_reports",
        "studies.jobs_library",
        "studies.jobs_results",
    ]
