"""The web server the participant benchmark drives: start, measure its CPU, stop."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LOG_PATH = ROOT / "var" / "bench-participants-server.log"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env() -> dict:
    env = dict(os.environ)
    env.update(
        DJANGO_DEBUG="0",
        SECRET_KEY=env.get("SECRET_KEY") or secrets.token_urlsafe(40),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",  # plain HTTP on the loopback, no TLS proxy in front
        LOG_LEVEL="ERROR",
    )
    return env


def collect_static() -> None:
    """The pages name their static files by the production manifest, which this writes."""
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=ROOT, env=server_env(), check=True,
    )  # fmt: skip


# Each request's method, path, status and milliseconds, one per line (access_log=True).
ACCESS_FORMAT = {
    "granian": "%(method)s %(path)s %(status)d %(dt_ms).3f",
    "gunicorn": "%(m)s %(U)s %(s)s %(M)s",
}


def answer_times_in_server(log_path: Path) -> list[float]:
    """Seconds each answer POST spent inside the web server, from its access log."""
    times = []
    for line in log_path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "POST" and parts[1].endswith("/responses/"):
            times.append(float(parts[3]) / 1000)
    return times


def start_server(
    port: int, workers: int, threads: int, worker_class: str = "gthread", server: str = "granian",
    *, env: dict | None = None, log_path: Path = LOG_PATH, access_log: bool = False,
    cwd: Path = ROOT,
) -> subprocess.Popen:  # fmt: skip
    """The web server on ``port``: Granian as the Procfile runs it (``workers`` processes of
    ``threads`` blocking threads), or gunicorn (``worker_class`` workers). Its output goes to
    ``log_path``, with an access line per request (ACCESS_FORMAT) if ``access_log``. It
    serves the code in ``cwd`` (another checkout, for bench/ab_servers.py)."""
    if server == "granian":
        command = [
            str(Path(sys.executable).with_name("granian")), "--interface", "wsgi",
            "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
            "--blocking-threads", str(threads), "--backlog", "2048", "--log-level", "warning",
            "config.wsgi:application",
        ]  # fmt: skip
        if access_log:
            command += ["--access-log", "--access-log-fmt", ACCESS_FORMAT[server]]
    else:
        command = [
            sys.executable, "-m", "gunicorn", "config.wsgi:application",
            "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--worker-class", worker_class,
            "--backlog", "2048", "--log-level", "warning", "--timeout", "60",
        ]  # fmt: skip
        if worker_class == "gthread":  # sync workers have one thread and close each connection
            command += ["--threads", str(threads), "--keep-alive", "30"]
        if access_log:
            command += ["--access-logfile", "-", "--access-logformat", ACCESS_FORMAT[server]]
    # Request logs (the warm-up's deliberate 404s, 4xx warnings) go to a file, not the report.
    log_path.parent.mkdir(exist_ok=True)
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            command, cwd=cwd, env=env or server_env(), start_new_session=True, stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{server} exited with {proc.returncode}; see {log_path}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return proc
        except OSError:
            pass
        time.sleep(0.2)
    stop(proc)
    raise SystemExit(f"{server} did not answer /healthz within 60 s; see {log_path}")


def _stat(pid: int | str) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name, or None once it has ended."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _cpu(fields: list[str]) -> float:
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def process_group_cpu(pgid: int) -> float:
    """CPU seconds used so far by the processes of a process group (Linux /proc)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        fields = _stat(entry.name) if entry.name.isdigit() else None
        if fields is not None and int(fields[2]) == pgid:  # pgrp
            total += _cpu(fields)
    return total


def process_cpu(pid: int) -> float:
    fields = _stat(pid)
    return _cpu(fields) if fields is not None else 0.0


class PostgresCpu:
    """CPU seconds of the bench database's backends over a run, ended backends included.

    A backend's CPU can be read only while it runs (/proc, so only for a database on this
    machine), and the web server's connections end every ``DB_CONN_MAX_AGE`` seconds:
    read once at the start and once at the end, a four-minute classroom missed every
    backend that came and went in between (four fifths of the database's CPU). So the
    backends are read every ``EVERY_S`` over one connection of its own (excluded), and
    each one's last figure is kept; a backend that ends loses at most its last interval.
    """

    EVERY_S = 1.0

    def __init__(self):
        import psycopg

        self._conn = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True)
        self._last: dict[int, float] = {}
        self._first = self.read()

    def read(self) -> dict[int, float]:
        """CPU seconds so far of each backend running now, by pid."""
        rows = self._conn.execute(
            "SELECT pid FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
        figures = {pid: process_cpu(pid) for (pid,) in rows}
        # One that ended between the query and its /proc entry reads 0: keep its last figure.
        self._last.update({pid: cpu for pid, cpu in figures.items() if cpu})
        return figures

    async def watch(self) -> None:
        """Read every ``EVERY_S`` until cancelled."""
        while True:
            await asyncio.sleep(self.EVERY_S)
            self.read()

    def used(self) -> float:
        """CPU seconds used since this object was made (new backends in full)."""
        self.read()
        return sum(cpu - self._first.get(pid, 0.0) for pid, cpu in self._last.items())

    def close(self) -> None:
        self._conn.close()


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
