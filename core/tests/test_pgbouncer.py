"""Chartroom behind PgBouncer in transaction pooling mode (DB_POOLER=pgbouncer).

The pool has two server connections used in turn (core/tests/nodes.py), so a statement that
relies on the previous one's server session meets a server connection that never saw it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.db import connection

from conftest import ROOT
from core.tests import nodes

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# Reads users with QuerySet.iterator() in autocommit (Django's WITH HOLD cursor unless the
# pooler backend says otherwise) and inside a transaction (as exports do), each twice.
SCRIPT = """
import time
import django
django.setup()
from django.db import transaction
from core.models import User
User.objects.exists()
time.sleep(2.5)  # PgBouncer opens the pool's second server connection (min_pool_size)
for _ in range(2):
    outside = [u.username for u in User.objects.order_by("pk").iterator(chunk_size=1)]
    with transaction.atomic():
        inside = [u.username for u in User.objects.order_by("pk").iterator(chunk_size=1)]
    assert outside == inside, (outside, inside)
print(len(outside))
"""


@pytest.fixture
def bouncer_url(tmp_path):
    proc, port = nodes.pgbouncer_start(tmp_path, pool_size=2)
    yield f"postgres://postgres@127.0.0.1:{port}/{connection.settings_dict['NAME']}"
    nodes.stop(proc)


def run(url: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": url,
             "CELERY_BROKER_URL": "", "CACHE_URL": "", **env},
    )  # fmt: skip


def test_iterators_in_and_out_of_transactions_work_behind_pgbouncer(make_user, bouncer_url):
    for _ in range(3):
        make_user("annotator")
    result = run(bouncer_url, DB_POOLER="pgbouncer")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "3"


def test_without_the_pooler_setting_a_held_cursor_is_lost(make_user, bouncer_url):
    """The reason DB_POOLER exists: the plain backend breaks under transaction pooling."""
    for _ in range(3):
        make_user("annotator")
    result = run(bouncer_url, DB_POOLER="")
    assert result.returncode != 0
    assert "does not exist" in result.stderr
