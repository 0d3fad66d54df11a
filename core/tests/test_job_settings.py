"""Job settings: the broker's visibility timeout follows the time limit and the stale limit."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, django
from django.conf import settings
django.setup()
from config.celery import app
print(json.dumps({
    "visibility": app.conf.broker_transport_options.get("visibility_timeout"),
    "soft_limit": app.conf.task_soft_time_limit,
    "hard_limit": app.conf.task_time_limit,
    "stale": settings.CHARTROOM_JOB_STALE_SECONDS,
    "sweep": app.conf.beat_schedule["sweep-stale-jobs"]["schedule"],
    "runner": settings.CHARTROOM_JOB_RUNNER,
}))
"""


def probe(tmp_path, **env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CHARTROOM_", "CELERY_"))}
    clean.pop("DATABASE_URL", None)
    clean.update(DJANGO_SETTINGS_MODULE="config.settings", CHARTROOM_VAR_DIR=str(tmp_path), **env)
    return subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=clean, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


def test_the_visibility_timeout_outlasts_the_longest_job_and_its_stale_limit(tmp_path):
    result = probe(tmp_path, CHARTROOM_JOB_TIME_LIMIT="3600", CHARTROOM_JOB_STALE_SECONDS="120")
    assert result.returncode == 0, result.stderr
    conf = json.loads(result.stdout)
    assert conf["soft_limit"] == 3600 and conf["hard_limit"] == 3660
    assert conf["visibility"] == 3600 + 60 + 120
    assert conf["stale"] == 120


def test_the_visibility_timeout_and_the_sweep_can_be_set(tmp_path):
    result = probe(tmp_path, CELERY_VISIBILITY_TIMEOUT="90000", CHARTROOM_JOB_SWEEP_SECONDS="15")
    assert result.returncode == 0, result.stderr
    conf = json.loads(result.stdout)
    assert conf["visibility"] == 90000 and conf["sweep"] == 15


def test_a_visibility_timeout_shorter_than_the_longest_job_is_refused_with_the_fix(tmp_path):
    result = probe(tmp_path, CELERY_VISIBILITY_TIMEOUT="600", CHARTROOM_JOB_TIME_LIMIT="3600")
    assert result.returncode != 0
    assert "CELERY_VISIBILITY_TIMEOUT (600 s) must be longer than" in result.stderr
    assert "CHARTROOM_JOB_TIME_LIMIT" in result.stderr


def test_without_a_broker_jobs_run_on_the_web_process_threads(tmp_path):
    result = probe(tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["runner"] == "local"
    with_broker = probe(tmp_path, CELERY_BROKER_URL="redis://127.0.0.1:6379/15")
    assert json.loads(with_broker.stdout)["runner"] == "celery"


def test_the_procfile_runs_celery_beat_beside_the_worker_and_make_serve_starts_all_of_it():
    from honcho.environ import parse_procfile

    processes = parse_procfile((ROOT / "Procfile").read_text()).processes
    assert processes["beat"].startswith("celery -A config beat ")
    assert processes["worker"].startswith("celery -A config worker ")
    serve = (ROOT / "Makefile").read_text().split("\nserve:", 1)[1].split("\n\n", 1)[0]
    # With a broker every Procfile process starts; without one only the web, whose
    # threads run and sweep the jobs.
    assert "honcho start -f Procfile;" in serve
    assert "honcho start -f Procfile web;" in serve
