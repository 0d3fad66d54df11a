"""The demo study loaded by `make demo`."""

import json
import re
from pathlib import Path

import pytest
from django.urls import reverse

from demo.study import DEMO_SLUG, load_study_demo
from demo.study_de import QUESTIONS
from studies.models import AttentionCheck, ParticipantSession, Study
from studies.selectors.study import study_readiness
from studies.services.sessions import Identity, session_start
from studies.tests.factories import make_chart_set

pytestmark = pytest.mark.django_db


def test_the_demo_study_is_live_with_every_pair_and_two_checks(researcher):
    chart_set = make_chart_set(researcher, pairs=5)
    study = load_study_demo(researcher, chart_set)
    assert study.slug == DEMO_SLUG and study.status == Study.Status.LIVE
    assert study.study_pairs.count() == 5 and study_readiness(study) == []
    kinds = sorted(study.attention_checks.values_list("kind", flat=True))
    assert kinds == [AttentionCheck.Kind.INSTRUCTED, AttentionCheck.Kind.SANITY]
    session = session_start(
        study=study, identity=Identity("pid", "demo-1", {"pid": "demo-1"})
    ).session
    assert session.trial_count == 12


def test_loading_the_demo_again_changes_nothing(researcher):
    chart_set = make_chart_set(researcher, pairs=3)
    first = load_study_demo(researcher, chart_set)
    session_start(study=first, identity=Identity("pid", "demo-1", {"pid": "demo-1"}))
    again = load_study_demo(researcher, chart_set)
    assert again.pk == first.pk and Study.objects.count() == 1
    assert again.attention_checks.count() == 2 and again.study_pairs.count() == 3


def _main(response) -> str:
    return re.search(r"<main.*?</main>", response.content.decode(), re.S)[0]


@pytest.mark.parametrize(
    "language,withdrawal,ranking",
    [
        ("en", "withdraw at any time", "then drag or use the arrows to change the order"),
        ("de", "jederzeit", "ändern Sie die Reihenfolge dann durch Ziehen oder mit den Pfeilen"),
    ],
)
def test_the_demo_says_each_thing_once_in_each_language(
    client, researcher, language, withdrawal, ranking
):
    study = load_study_demo(researcher, make_chart_set(researcher, pairs=3))
    consent_url = reverse("participate:consent", args=[study.slug])
    params = {"PROLIFIC_PID": f"demo-{language}", "lang": language}
    consent = _main(client.get(consent_url, params))
    # The page's own sentence (from the settings) is the one home for withdrawal.
    assert consent.count(withdrawal) == 1, consent
    client.post(consent_url, {"choice": "agree", **params})
    session = ParticipantSession.objects.get(external_id=f"demo-{language}")
    instructions = _main(client.get(reverse("participate:session", args=[session.token])))
    assert ranking in instructions
    # Once, as the time limit (the session's random token in the page's links may hold "60").
    assert instructions.replace(session.token, "").count("60") == 1


def test_german_options_stand_where_the_original_ones_do():
    """Translated options are matched to the original ones by position: a name kept as it
    is must sit at its original place (G14_Q1's restaurants were listed in the key's order,
    while a ranking's options are stored alphabetically)."""
    specs = json.loads(
        (Path(__file__).resolve().parents[2] / "fixtures/chart_specs.json").read_text()
    )
    specs = specs if isinstance(specs, list) else specs["specs"]
    for spec in specs:
        if spec.get("id") not in QUESTIONS or " > " not in str(spec.get("answer", "")):
            continue
        original = sorted(spec["answer"].split(" > "), key=str.casefold)  # as ranking stores them
        german = QUESTIONS[spec["id"]][1]
        for place, name in enumerate(german):
            if name in original:
                assert original.index(name) == place, (spec["id"], german, original)
