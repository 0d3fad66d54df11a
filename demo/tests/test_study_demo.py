"""The demo study loaded by `make demo`."""

import pytest

from demo.study import DEMO_SLUG, load_study_demo
from studies.models import AttentionCheck, Study
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
