"""Starting Django, resolving a URL and serving a participant page load no statistics library.

Every web worker, job worker and management command sets Django up; pandas, scipy and friends
cost about 190 MB and 2.5 s there, so the modules that use them import them inside the functions
that need them. Each check runs in a fresh interpreter: this test process has long since
imported them for other tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from core.tests.source_tree import ROOT

HEAVY = ("pandas", "scipy", "statsmodels", "matplotlib", "pyarrow", "krippendorff")

_PRELUDE = f"""
import json, os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
import django
django.setup()
HEAVY = {HEAVY!r}
def loaded():
    return sorted(name for name in HEAVY if name in sys.modules)
"""


def _run(body: str, tmp_path, *, unset: tuple[str, ...] = ()) -> dict:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", *unset}
    }
    # A throwaway SQLite database under its own var/ keeps the check apart from the tests' database.
    env.update(CHARTROOM_VAR_DIR=str(tmp_path), PYTHONPATH=str(ROOT), CHARTROOM_TESTING="1")
    script = _PRELUDE + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_django_setup_imports_no_statistics_library(tmp_path):
    found = _run("print(json.dumps({'setup': loaded()}))", tmp_path)
    assert found == {"setup": []}


def test_a_participant_page_imports_no_statistics_library(tmp_path):
    found = _run(
        """
        from django.core.management import call_command
        from django.test import Client
        from django.test.utils import setup_test_environment
        from django.urls import get_resolver, resolve, reverse

        setup_test_environment()
        call_command("migrate", verbosity=0)
        get_resolver().url_patterns  # every URL module, so every view module
        after_urls = loaded()

        from core.tests.factories import UserFactory
        from studies.services.sessions import Identity, session_start
        from studies.tests.factories import make_study

        owner = UserFactory(username="rita", role="researcher")
        study = make_study(owner, pairs=2)
        session = session_start(
            study=study, identity=Identity("prolific", "P1", {"PROLIFIC_PID": "P1"})
        ).session
        client = Client()
        resolve(reverse("participate:session", args=[session.token]))
        welcome_url = reverse("participate:welcome", args=[study.slug])
        welcome = client.get(welcome_url, {"PROLIFIC_PID": "P2"}).status_code
        client.post(reverse("participate:begin", args=[session.token]))
        page = client.get(reverse("participate:session", args=[session.token]))
        print(json.dumps({
            "urls": after_urls,
            "pages": [welcome, page.status_code, b"<form" in page.content],
            "after_pages": loaded(),
        }))
        """,
        tmp_path,
    )
    assert found == {"urls": [], "pages": [200, 200, True], "after_pages": []}


def test_django_setup_chooses_arrows_system_allocator(tmp_path):
    """Arrow's default allocator (mimalloc) keeps what it freed: a Parquet export's peak RSS
    rises with it, and Arrow reads the choice only when pyarrow is first imported."""
    found = _run(
        """
        import pyarrow
        print(json.dumps({"pool": pyarrow.default_memory_pool().backend_name}))
        """,
        tmp_path,
        unset=("ARROW_DEFAULT_MEMORY_POOL",),
    )
    assert found == {"pool": "system"}
