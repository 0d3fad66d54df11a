"""Live sessions are numbered among themselves, so pilots and previews never shift the
balanced order of the real sample, and one live number means one participant everywhere."""

import csv
import io
import re

import pytest
from django.urls import reverse

from studies.models import ParticipantSession, Study
from studies.ordering import CheckSlot, build_order
from studies.services.exports import export_write
from studies.services.results.simulate import study_simulate
from studies.services.sessions import Identity, session_start
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def _start(study, pid, *, preview=False):
    study.refresh_from_db()
    identity = Identity("prolific", pid, {})
    return session_start(study=study, identity=identity, preview=preview).session


def test_pilot_and_preview_sessions_between_live_ones_leave_the_live_orders_as_without_them(
    researcher,
):
    study = make_study(researcher, pairs=5, status=Study.Status.PILOT)
    live = []
    for i in range(6):
        Study.objects.filter(pk=study.pk).update(status=Study.Status.PILOT)
        _start(study, f"pilot-{i}")
        Study.objects.filter(pk=study.pk).update(status=Study.Status.LIVE)
        _start(study, "", preview=True)
        live.append(_start(study, f"live-{i}"))

    assert [s.number for s in live] == [1, 2, 3, 4, 5, 6]
    assert not any(s.is_test for s in live)
    pair_ids = list(study.study_pairs.values_list("question_id", flat=True))
    checks = [CheckSlot(c.id, c.position) for c in study.attention_checks.all()]
    alone = [
        build_order(pair_ids=pair_ids, checks=checks, study_seed=study.seed, participant_number=n)
        for n in range(1, 7)
    ]
    assert [s.order for s in live] == [order.as_json() for order in alone]
    # Balanced exactly: each pair came manipulated-first for three of the six live participants.
    for pair in pair_ids:
        assert sum(pair in order.manipulated_first for order in alone) == 3
    assert ParticipantSession.objects.filter(study=study).count() == 18


def test_an_export_gives_a_participant_number_only_to_live_participants(researcher):
    study = make_study(researcher, pairs=3, status=Study.Status.PILOT)
    study_simulate(study=study, participants=2, seed=1, timeout_rate=0)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.LIVE)
    study.refresh_from_db()
    study_simulate(study=study, participants=2, seed=2, timeout_rate=0)
    buffer = io.BytesIO()
    export_write(study=study, slug="responses-csv", out=buffer)
    rows = list(csv.DictReader(io.StringIO(buffer.getvalue().decode())))
    numbers: dict[str, set[str]] = {}
    for row in rows:
        numbers.setdefault(row["participant"], set()).add(row["participant_number"])
    tests = {r["participant"] for r in rows if "pilot or preview" in r["exclusion_reason"]}
    assert len(tests) == 2 and len(numbers) == 4
    # The pilot's own numbers (1 and 2) would read as the live participants 1 and 2.
    assert all(numbers[p] == {""} for p in tests)
    assert sorted(n for p, ns in numbers.items() if p not in tests for n in ns) == ["1", "2"]


def test_the_researchers_pages_never_show_a_test_sessions_number_as_a_live_one(researcher, client):
    study = make_study(researcher, pairs=3, status=Study.Status.PILOT)
    pilot = _start(study, "pilot-1")
    Study.objects.filter(pk=study.pk).update(status=Study.Status.LIVE)
    preview = _start(study, "", preview=True)
    live = _start(study, "live-1")
    assert (pilot.number, preview.number, live.number) == (1, 2, 1)

    client.force_login(researcher)
    page = client.get(reverse("studies:detail", args=[study.slug])).content.decode()
    links = {int(pk): text for pk, text in re.findall(r'/participants/(\d+)/">([^<]*)</a>', page)}
    assert links == {live.pk: "1", pilot.pk: "pilot 1", preview.pk: "preview 2"}
    detail = client.get(reverse("studies:session", args=[study.slug, pilot.pk])).content.decode()
    assert "<h1>Test session pilot 1 " in detail and "Participant 1" not in detail
    detail = client.get(reverse("studies:session", args=[study.slug, live.pk])).content.decode()
    assert "<h1>Participant 1 " in detail
