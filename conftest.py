"""Shared pytest fixtures: accounts, API clients, a real Celery worker, a browser."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
SHARED_DIR = ROOT.parent / "shared"


def pytest_collection_modifyitems(config, items):
    """Leave out tests whose service is not configured (deselected, never skipped).

    CI runs the suite twice, once with DATABASE_URL and CELERY_BROKER_URL set and once
    with nothing set, so every test runs in at least one of them.
    """
    has_postgres = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
    has_broker = bool(os.environ.get("CELERY_BROKER_URL"))
    keep, drop = [], []
    for item in items:
        if (item.get_closest_marker("postgres") and not has_postgres) or (
            (item.get_closest_marker("worker") or item.get_closest_marker("multinode"))
            and not (has_broker and has_postgres)
        ):
            drop.append(item)
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(autouse=True)
def _isolated_media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PRIVATE_MEDIA_ROOT = tmp_path / "private"


@pytest.fixture(autouse=True)
def _empty_cache():
    """Every test starts with an empty cache (a shared Redis one in CI outlives a test)."""
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture(autouse=True)
def _celery_mode(request):
    """Run tasks eagerly in-process, except in tests that need the real worker."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = request.node.get_closest_marker("worker") is None
    yield
    app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _live_server_settles(request):
    """Before the test database is emptied, wait for the live server's requests to end.

    A browser test can end while a request it set off (a key repeat, a draft save) is
    still running in the live server's thread; PostgreSQL's TRUNCATE then deadlocks with
    it. Set up after the database fixture, so this runs before the flush and after the
    test's browser contexts are closed.
    """
    if "live_server" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("_django_db_helper")
    yield
    from django.db import connection

    # Quiet for three looks in a row: a closing page's last draft save (sent with
    # keepalive on pagehide) can reach the server just after the first look.
    quiet, deadline = 0, time.monotonic() + 10
    while quiet < 3 and time.monotonic() < deadline:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    " AND pid <> pg_backend_pid() AND state <> 'idle'"
                )
                busy = cursor.fetchone()[0]
        else:
            # SQLite's shared in-memory database locks whole tables, and a lock held by a
            # request fails the flush at once ("database table is locked"), without the
            # busy timeout's wait: count the live server's requests instead.
            busy = _REQUESTS_IN_FLIGHT.count
        quiet = quiet + 1 if busy == 0 else 0
        time.sleep(0.05)


class _RequestsInFlight:
    """How many requests this process's servers (the live server's thread) are answering."""

    def __init__(self):
        self.count = 0
        self._lock = threading.Lock()

    def started(self, **_kwargs):
        with self._lock:
            self.count += 1

    def finished(self, **_kwargs):
        with self._lock:
            self.count = max(0, self.count - 1)


_REQUESTS_IN_FLIGHT = _RequestsInFlight()


def pytest_configure(config):
    from django.core.signals import request_finished, request_started

    request_started.connect(_REQUESTS_IN_FLIGHT.started, weak=False)
    request_finished.connect(_REQUESTS_IN_FLIGHT.finished, weak=False)


@pytest.fixture
def password():
    from core.tests.factories import PASSWORD

    return PASSWORD


@pytest.fixture
def make_user(db, password):
    from core.tests.factories import UserFactory

    counter = {"n": 0}

    def make(role="researcher", username=None, **extra):
        counter["n"] += 1
        username = username or f"{role}{counter['n']}"
        return UserFactory(username=username, password=password, role=role, **extra)

    return make


@pytest.fixture
def researcher(make_user):
    return make_user("researcher", username="rita")


@pytest.fixture
def other_researcher(make_user):
    return make_user("researcher", username="otto")


@pytest.fixture
def annotator(make_user):
    return make_user("annotator", username="anna")


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def researcher_api(researcher):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(researcher)
    return client


@pytest.fixture
def annotator_api(annotator):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(annotator)
    return client


def celery_env(queue: str, **extra: str) -> dict:
    """The environment of a celery process that uses the test database and its own queue."""
    from django.db import connection

    env = dict(os.environ)
    base = env["DATABASE_URL"].rsplit("/", 1)[0]
    env["DATABASE_URL"] = f"{base}/{connection.settings_dict['NAME']}"
    env["CELERY_QUEUE"] = queue
    env.update(extra)
    return env


def celery_start(
    args: list[str], env: dict, log: Path, *, ready: str = "ready."
) -> subprocess.Popen:
    """Start `celery -A config ARGS...` and wait until its log says ``ready``."""
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("")
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", *args, "--loglevel=INFO",
         f"--logfile={log}"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"celery {args[0]} exited with {proc.returncode}; see {log}")
        if ready in log.read_text(errors="replace"):
            return proc
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"celery {args[0]} did not become ready in 60 s; see {log}")


def celery_stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):
    """A real `celery worker` process against the test database and the configured broker."""
    queue = f"chartroom-test-{os.getpid()}"  # never steal a dev worker's tasks
    env = celery_env(queue)
    os.environ["CELERY_QUEUE"] = queue
    from django.conf import settings

    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    from config.celery import app

    app.conf.task_default_queue = queue
    proc = celery_start(
        ["worker", "--pool=solo", "--concurrency=1", "-Q", queue, "--without-gossip",
         "--without-mingle", "--without-heartbeat"],
        env, ROOT / "var" / "test-worker.log",
    )  # fmt: skip
    yield proc
    celery_stop(proc)


class CspWatchingBrowser:
    """The Playwright browser, recording every Content-Security-Policy violation.

    Chromium reports each refused inline script, handler, style or source as a console
    error; every context made through this wrapper (the `page` fixture's and the ones
    tests make themselves) is watched, and the test fails if any was seen.
    """

    def __init__(self, browser):
        self._browser = browser
        self.violations: list[str] = []

    def new_context(self, **kwargs):
        context = self._browser.new_context(**kwargs)
        context.on("console", self._on_console)
        return context

    def _on_console(self, message):
        if message.type == "error" and "Content Security Policy" in message.text:
            self.violations.append(f"{message.location.get('url', '?')}: {message.text}")

    def __getattr__(self, name):
        return getattr(self._browser, name)


@pytest.fixture(autouse=True)
def _no_csp_violations(request):
    """Browser tests fail when a page breaks the Content-Security-Policy."""
    if "browser" not in request.fixturenames:
        yield
        return
    watcher = request.getfixturevalue("browser")
    watcher.violations.clear()
    yield
    if watcher.violations:
        found = "\n".join(dict.fromkeys(watcher.violations))
        watcher.violations.clear()
        pytest.fail(f"The pages broke the Content-Security-Policy:\n{found}", pytrace=False)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright (no browser download), watched for CSP violations."""
    from playwright.sync_api import expect, sync_playwright

    # The same patience for assertions as for actions: a loaded CI machine can take
    # seconds to answer a form post, and expect() retries until the page shows it.
    expect.set_options(timeout=15_000)
    # Playwright's sync API keeps an event loop in this thread; the ORM calls that
    # tests make between browser steps are still plain synchronous code.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as p:
        instance = p.chromium.launch(
            executable_path=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"),
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        )  # fmt: skip
        yield CspWatchingBrowser(instance)
        instance.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.set_default_timeout(15_000)
    pg = context.new_page()
    yield pg
    context.close()
