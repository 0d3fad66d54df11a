"""Two web nodes, one worker, shared PostgreSQL (through PgBouncer), Redis and buckets.

Every request alternates between the nodes, as a round-robin load balancer would send them:
an image uploaded on one is shown by the other, a participant consents on one and answers
on the other, an export queued on one is built by the worker and downloaded from the other,
an annotator takes an item on one and submits it on the other, and a sign-in on one node
holds on the other. Nothing may be lost, duplicated or seen by one node only.
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import time
import uuid

import pytest
import requests
from django.db import connection

from annotation.models import Assignment, LabelSet
from annotation.services import project_join
from annotation.tests.factories import ItemFactory, ProjectFactory
from conftest import ROOT, celery_env, celery_start, celery_stop
from core.services.tokens import api_token_create
from core.tests import nodes
from studies.models import Chart, ParticipantSession, Response
from studies.tests.factories import answer_for, make_study, png_bytes

pytestmark = [pytest.mark.multinode, pytest.mark.django_db(transaction=True)]

SECRET = "two-node-test-" + "k" * 50


@pytest.fixture
def cluster(tmp_path, django_db_setup):
    """Start moto, PgBouncer, a worker and two web nodes; yield the nodes' base URLs."""
    started, worker = [], None
    try:
        moto, endpoint = nodes.moto_start(tmp_path / "moto.log")
        started.append(moto)
        tag = uuid.uuid4().hex[:8]
        s3 = nodes.s3_env(endpoint, f"charts-{tag}", f"private-{tag}")
        nodes.buckets_create(endpoint, s3["AWS_STORAGE_BUCKET_NAME"], s3["AWS_PRIVATE_BUCKET_NAME"])
        bouncer, port = nodes.pgbouncer_start(tmp_path)
        started.append(bouncer)
        queue = f"chartroom-nodes-{os.getpid()}"
        broker = os.environ["CELERY_BROKER_URL"]
        env = celery_env(
            queue,
            **s3,
            DATABASE_URL=f"postgres://postgres@127.0.0.1:{port}/{connection.settings_dict['NAME']}",
            DB_POOLER="pgbouncer",
            CACHE_URL=os.environ.get("CACHE_URL") or broker,
            SECRET_KEY=SECRET,
            DJANGO_DEBUG="1",
        )
        web = []
        for name in ("a", "b"):
            proc, url = nodes.web_node_start(env, tmp_path / f"node-{name}")
            started.append(proc)
            web.append((proc, url, tmp_path / f"node-{name}"))
        worker = celery_start(
            ["worker", "--pool=solo", "-Q", queue, "--without-gossip", "--without-mingle",
             "--without-heartbeat"],
            env, ROOT / "var" / "test-nodes-worker.log",
        )  # fmt: skip
        for proc, url, folder in web:
            nodes.web_node_wait(proc, url, folder)
        urls = [url for _, url, _ in web]
        yield urls
    finally:
        if worker is not None:
            celery_stop(worker)
        for proc in reversed(started):
            nodes.stop(proc)


class RoundRobin:
    """Sends each request to the next node; a ``requests`` session per client keeps cookies."""

    def __init__(self, urls, token=None):
        self._next = itertools.cycle(urls)
        self.http = requests.Session()
        if token:
            self.http.headers["Authorization"] = f"Token {token}"
        self.seen = set()

    def __call__(self, method, path, **kwargs):
        base = next(self._next)
        self.seen.add(base)
        response = self.http.request(method, base + path, timeout=30, **kwargs)
        assert response.status_code < 500, (base, path, response.text[:500])
        return response


def test_a_study_and_an_annotation_round_alternate_between_two_nodes(
    cluster, researcher, make_user, password, settings
):
    # The nodes are not test processes: they check passwords with Django's default hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    researcher.set_password(password)
    researcher.save(update_fields=["password"])
    study = make_study(researcher, pairs=2)
    token = api_token_create(user=researcher, name="nodes").key
    lab = RoundRobin(cluster, token)

    images = _upload_images(lab, study)
    sessions = [_participate(RoundRobin(cluster), study, pid, images) for pid in ("P1", "P2")]
    _export_downloads(lab, study, sessions)
    _annotation_round(cluster, researcher, make_user)
    _sign_in_holds_across_nodes(cluster, researcher, password)
    assert lab.seen == set(cluster)


def _upload_images(lab, study) -> dict[str, bytes]:
    """Upload every chart's image, alternating nodes; each is then served by the bucket."""
    uploaded = {}
    charts = Chart.objects.filter(question__chart_set=study.chart_set).order_by("chart_id")
    for i, chart in enumerate(charts):
        data = png_bytes(color=(i * 20, 50, 100))
        response = lab(
            "PUT",
            f"/api/v1/library/chart-sets/{study.chart_set.slug}/charts/{chart.chart_id}/image/",
            files={"image": ("chart.png", data, "image/png")},
        )
        assert response.status_code == 200, response.text
        uploaded[response.json()["image_url"]] = data
    return uploaded


def _participate(node, study, pid, images) -> str:
    api = "/api/v1/participate"
    started = node("POST", f"{api}/studies/{study.slug}/sessions/",
                   json={"consent": True, "params": {"PROLIFIC_PID": pid}})  # fmt: skip
    assert started.status_code == 201, started.text
    token = started.json()["token"]
    assert node("POST", f"{api}/sessions/{token}/begin/").json()["stage"] == "trial"
    while (trial := node("GET", f"{api}/sessions/{token}/trial/")).status_code == 200:
        data = trial.json()
        session = ParticipantSession.objects.get(token=token)
        shown = session.trials.get(position=data["position"])
        if shown.kind == "chart":  # the client is not told; the database knows
            # The image the other node stored, fetched where the page would load it from.
            assert requests.get(data["image_url"], timeout=10).content == images[data["image_url"]]
        answer = answer_for(shown)
        body = {"position": data["position"], "answer": answer, "interactions": 2}
        assert node("POST", f"{api}/sessions/{token}/responses/", json=body).status_code == 201
    state = node("GET", f"{api}/sessions/{token}/").json()
    assert state["status"] == "completed"
    session = ParticipantSession.objects.get(token=token)
    assert Response.objects.filter(session=session).count() == session.trials.count()
    return token


def _export_downloads(lab, study, tokens) -> None:
    queued = lab("POST", f"/api/v1/studies/{study.slug}/results/exports/",
                 json={"format": "responses-csv"})  # fmt: skip
    assert queued.status_code == 202, queued.text
    job_id = queued.json()["id"]
    deadline = time.monotonic() + 30
    while (job := lab("GET", f"/api/v1/jobs/{job_id}/").json())["state"] not in ("done", "failed"):
        assert time.monotonic() < deadline, job
        time.sleep(0.2)
    assert job["state"] == "done", job
    bodies = [lab("GET", f"/api/v1/jobs/{job_id}/download/").content for _ in range(2)]
    assert bodies[0] == bodies[1]  # the same file from both nodes
    rows = list(csv.DictReader(io.StringIO(bodies[0].decode("utf-8-sig"))))
    assert len(rows) == Response.objects.filter(session__study=study).count() > 0


def _annotation_round(urls, researcher, make_user) -> None:
    project = ProjectFactory(owner=researcher, annotators_per_item=1)
    items = [ItemFactory(project=project, position=i) for i in range(4)]
    annotator = make_user("annotator")
    project_join(project=project, annotator=annotator)
    node = RoundRobin(urls, api_token_create(user=annotator, name="nodes").key)
    for _ in items:
        lease = node("POST", f"/api/v1/annotator/projects/{project.slug}/next/")
        assert lease.status_code == 200, lease.text
        submitted = node("POST", f"/api/v1/annotator/assignments/{lease.json()['id']}/submit/",
                         json={"labels": [["value_error"], []], "active_seconds": 2})  # fmt: skip
        assert submitted.status_code == 201, submitted.text
    assert node("POST", f"/api/v1/annotator/projects/{project.slug}/next/").status_code == 204
    labelled = LabelSet.objects.filter(item__project=project)
    assert sorted(labelled.values_list("item_id", flat=True)) == [i.pk for i in items]
    assert not Assignment.objects.filter(item__project=project, state="leased").exists()


def _sign_in_holds_across_nodes(urls, researcher, password) -> None:
    browser = RoundRobin(urls)
    page = browser("GET", "/login/")
    signed_in = browser(
        "POST", "/login/",
        data={"username": researcher.username, "password": password, "csrfmiddlewaretoken":
              page.cookies.get("csrftoken") or browser.http.cookies["csrftoken"]},
        headers={"Referer": urls[1] + "/login/"}, allow_redirects=False,
    )  # fmt: skip
    assert signed_in.status_code == 302, signed_in.text[:300]
    assert browser("GET", "/api/v1/me/").json()["username"] == researcher.username
