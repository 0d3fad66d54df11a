"""The Procfile's web command serves the site as a deployment runs it: pages and chart
images over keep-alive connections, the media layer's caching, a clean stop."""

import http.client
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from honcho.environ import parse_procfile

from core.tests.nodes import free_port

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8


@pytest.fixture
def web(tmp_path):
    """The Procfile's web process on a free port, with the embedded set-up in tmp_path."""
    charts = tmp_path / "media" / "charts"
    charts.mkdir(parents=True)
    (charts / "ab12cd.png").write_bytes(PNG)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHARTROOM_", "CELERY_"))}
    env.pop("DATABASE_URL", None)
    env.update(
        CHARTROOM_VAR_DIR=str(tmp_path),
        MEDIA_ROOT=str(tmp_path / "media"),
        PORT=str(free_port()),
        WEB_CONCURRENCY="1",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    )
    command = parse_procfile((ROOT / "Procfile").read_text()).processes["web"]
    log = (tmp_path / "web.log").open("w")
    proc = subprocess.Popen(
        ["sh", "-c", f"exec {command}"], cwd=ROOT, env=env, stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    port = int(env["PORT"])
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, (tmp_path / "web.log").read_text()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/healthz")
            health = conn.getresponse()
            health.read()
            if health.status == 200:
                break
        except OSError:
            assert time.monotonic() < deadline, "the web process did not answer in 60 s"
            time.sleep(0.2)
    yield proc, conn
    conn.close()
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    log.close()


def test_the_procfile_web_process_serves_pages_and_charts_on_one_connection(web):
    proc, conn = web
    conn.request("GET", "/media/charts/ab12cd.png")
    image = conn.getresponse()
    assert (image.status, image.read()) == (200, PNG)
    assert image.getheader("Cache-Control") == "public, max-age=31536000, immutable"
    conn.request("GET", "/login/")  # the same connection, kept alive
    page = conn.getresponse()
    assert page.status == 200
    assert b"<form" in page.read()
    conn.request("GET", "/media/charts/not-there.png")
    missing = conn.getresponse()
    missing.read()
    assert missing.status == 404


def test_the_procfile_web_process_stops_on_sigterm(web):
    proc, _ = web
    os.killpg(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=15) is not None
