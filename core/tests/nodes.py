"""Processes the several-machines tests start: an S3 stand-in, PgBouncer and web nodes.

The S3 stand-in is moto's server mode, a real HTTP server speaking the S3 protocol: no real
object store (MinIO, Ceph, Garage) can be installed here, and a protocol-level stand-in
tests the same boto3 calls, signatures and URLs a bucket would see, which an in-process
mock of boto3 would not.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import boto3
import requests

ROOT = Path(__file__).resolve().parents[2]
S3_KEY = "testing"  # moto accepts any credentials


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, proc: subprocess.Popen, what: str, log: Path | None = None) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            detail = log.read_text(errors="replace")[-2000:] if log else ""
            raise RuntimeError(f"{what} exited with {proc.returncode}\n{detail}")
        try:
            requests.get(url, timeout=5)
            return
        except requests.RequestException:  # not listening yet, or still loading
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{what} did not answer at {url} in 60 s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def moto_start(log: Path) -> tuple[subprocess.Popen, str]:
    """moto's S3 server on a free port; returns the process and its endpoint URL."""
    port = free_port()
    log.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=log.open("w"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    endpoint = f"http://127.0.0.1:{port}"
    wait_for(endpoint, proc, "moto server", log)
    return proc, endpoint


def s3_env(endpoint: str, public: str, private: str) -> dict[str, str]:
    return {
        "CHARTROOM_STORAGE": "s3",
        "AWS_S3_ENDPOINT_URL": endpoint,
        "AWS_STORAGE_BUCKET_NAME": public,
        "AWS_PRIVATE_BUCKET_NAME": private,
        "AWS_S3_REGION_NAME": "us-east-1",
        "AWS_ACCESS_KEY_ID": S3_KEY,
        "AWS_SECRET_ACCESS_KEY": S3_KEY,
    }


def public_read_policy(bucket: str) -> str:
    """The bucket policy that lets anyone read chart images (README: several machines)."""
    return json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                       "Resource": f"arn:aws:s3:::{bucket}/*"}],
    })  # fmt: skip


def buckets_create(endpoint: str, public: str, private: str) -> None:
    """The chart bucket, readable by anyone, and the private bucket, readable by no one."""
    client = boto3.client(
        "s3", endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id=S3_KEY, aws_secret_access_key=S3_KEY,
    )  # fmt: skip
    client.create_bucket(Bucket=public)
    client.put_bucket_policy(Bucket=public, Policy=public_read_policy(public))
    client.create_bucket(Bucket=private)


def pgbouncer_start(folder: Path, *, pool_size: int = 2) -> tuple[subprocess.Popen, int]:
    """PgBouncer in transaction pooling mode in front of 127.0.0.1:5432, few server connections.

    A small pool used in turn (server_round_robin, and min_pool_size so both connections
    exist from the start) makes one client's consecutive transactions land on different
    server connections even when requests come one at a time, so anything session-level
    (prepared statements, WITH HOLD cursors) breaks the test rather than passing by luck.
    """
    port = free_port()
    # Its own world-readable folder: PgBouncer refuses to run as root and reads its files
    # as the postgres user.
    folder = Path(tempfile.mkdtemp(prefix="pgbouncer-", dir=folder))
    folder.chmod(0o755)
    (folder / "users.txt").write_text('"postgres" ""\n')
    ini = folder / "pgbouncer.ini"
    ini.write_text(
        "[databases]\n* = host=127.0.0.1 port=5432\n"
        f"[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {folder / 'users.txt'}\npool_mode = transaction\n"
        f"default_pool_size = {pool_size}\nmin_pool_size = {pool_size}\nmax_client_conn = 200\n"
        "server_round_robin = 1\n"
        "ignore_startup_parameters = extra_float_digits,options\n"
    )
    for path in (folder / "users.txt", ini):
        path.chmod(0o644)
    binary = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    args = [binary, str(ini)]
    if os.geteuid() == 0:
        args[1:1] = ["-u", "postgres"]
    log = folder / "pgbouncer.log"
    proc = subprocess.Popen(args, stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"pgbouncer exited: {log.read_text(errors='replace')[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc, port
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("pgbouncer did not listen in 15 s")


def web_node_start(env: dict, var_dir: Path) -> tuple[subprocess.Popen, str]:
    """A web node (Granian, as the Procfile runs it) with its own CHARTROOM_VAR_DIR; returns
    it and its base URL.

    Does not wait: start every node, then ``web_node_wait`` for each (they load in parallel).
    """
    port = free_port()
    var_dir.mkdir(parents=True, exist_ok=True)
    log = var_dir / "web.log"
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("granian")), "--interface", "wsgi",
         "config.wsgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--workers", "1", "--blocking-threads", "4", "--workers-kill-timeout", "2"],
        cwd=ROOT, env={**env, "CHARTROOM_VAR_DIR": str(var_dir)},
        stdout=log.open("w"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    return proc, f"http://127.0.0.1:{port}"


def web_node_wait(proc: subprocess.Popen, url: str, var_dir: Path) -> None:
    wait_for(f"{url}/healthz", proc, "web node", var_dir / "web.log")
