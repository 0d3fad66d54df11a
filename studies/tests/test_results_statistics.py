"""HMI, Wilson intervals, the chi-square test and the model fits, wired from the database.

Expected values are computed here independently: from the stored responses by
hand, Wilson's formula written out, and scipy for the chi-square test.
"""

import math
from collections import defaultdict

import pytest
from django.core.files.base import ContentFile
from scipy import stats

from studies.models import (
    Chart,
    ChartGroup,
    ChartSet,
    ManipulationType,
    ParticipantSession,
    Question,
    Trial,
)
from studies.selectors.results import chart_error_counts
from studies.services.results.compute import results_compute
from studies.services.results.exclusion import study_exclusion
from studies.services.results.simulate import study_simulate
from studies.tests.factories import bar_chart_png, make_study

pytestmark = pytest.mark.django_db


def wilson(k, n, z=1.959963984540054):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _by_hand(study):
    """chart code -> (n, wrong) over included participants; unanswered is wrong."""
    included = set(study_exclusion(study).included_ids)
    counts = defaultdict(lambda: [0, 0])
    for trial in Trial.objects.filter(session__study=study, kind="chart").select_related(
        "chart", "response"
    ):
        if trial.session_id not in included:
            continue
        response = getattr(trial, "response", None)
        counts[trial.chart.chart_id][0] += 1
        counts[trial.chart.chart_id][1] += not (response is not None and response.correct is True)
    return counts


def test_hmi_wilson_and_chi_square_match_an_independent_computation(researcher):
    study = make_study(researcher, pairs=3, exclude_incomplete=False)
    study_simulate(study=study, participants=40, seed=21, timeout_rate=0.1)
    data = results_compute(study, fit_models=False)
    expected = _by_hand(study)
    assert data["funnel"]["included"] == len(study_exclusion(study).included_ids) > 0
    for chart in data["charts"]:
        n, wrong = expected[chart["chart_id"]]
        assert chart["n"] == n and chart["n_wrong"] == wrong
        assert chart["hmi"] == pytest.approx(wrong / n)
        low, high = wilson(wrong, n)
        assert chart["ci_low"] == pytest.approx(low) and chart["ci_high"] == pytest.approx(high)
    # the overall 2x2 table and its test
    table = [[0, 0], [0, 0]]
    for code, (n, wrong) in expected.items():
        row = 1 if code.endswith("_2") else 0
        table[row][0] += wrong
        table[row][1] += n - wrong
    overall = data["chi_square"][0]
    assert overall["scope"] == "overall"
    assert overall["table"] == table
    reference = stats.chi2_contingency(table, correction=True)
    assert overall["chi2"] == pytest.approx(reference.statistic)
    assert overall["p_value"] == pytest.approx(reference.pvalue)


def test_the_database_aggregate_agrees_with_the_trial_level_hmi(researcher):
    study = make_study(researcher, pairs=3, exclude_incomplete=False)
    study_simulate(study=study, participants=25, seed=8, timeout_rate=0.2)
    data = results_compute(study, fit_models=False)
    counts = chart_error_counts(study, study_exclusion(study).included_ids)
    for chart in data["charts"]:
        n, wrong, _blank = counts[chart["pk"]]
        assert (n, wrong) == (chart["n"], chart["n_wrong"])


def test_a_hand_worked_case(researcher):
    """Three participants, one pair: HMI 1/3 and 3/3 with Wilson intervals worked by hand."""
    study = make_study(researcher, pairs=2, checks=())
    study_simulate(study=study, participants=3, seed=1, attention_fail_rate=0, timeout_rate=0)
    sessions = list(ParticipantSession.objects.filter(study=study).order_by("number"))
    plain = Chart.objects.get(chart_id="G1_Q1_1")
    from studies.models import Response

    Response.objects.filter(session__study=study).update(correct=True)
    Response.objects.filter(session=sessions[0], chart=plain).update(correct=False)
    Response.objects.filter(session__study=study, chart__chart_id="G1_Q1_2").update(correct=False)
    data = results_compute(study, fit_models=False)
    by_id = {c["chart_id"]: c for c in data["charts"]}
    assert by_id["G1_Q1_1"]["hmi"] == pytest.approx(1 / 3)
    # Wilson for 1 of 3: centre 0.4183, half-width 0.3590 (z = 1.96)
    assert by_id["G1_Q1_1"]["ci_low"] == pytest.approx(0.0615, abs=5e-4)
    assert by_id["G1_Q1_1"]["ci_high"] == pytest.approx(0.7923, abs=5e-4)
    assert by_id["G1_Q1_2"]["hmi"] == 1.0 and by_id["G1_Q1_2"]["ci_high"] == 1.0
    assert by_id["G1_Q1_2"]["ci_low"] == pytest.approx(0.4385, abs=5e-4)


def _two_group_study(owner):
    """Groups G3 (inverted y-axis: a large effect in the paper) and G10 (pictorial bars: small)."""
    chart_set = ChartSet.objects.create(title="Two groups", slug="two-groups", owner=owner)
    none, _ = ManipulationType.objects.get_or_create(slug="none", defaults={"label": "None"})
    for code, slug in (("G3", "inverted-y-axis-test"), ("G10", "pictorial-bars-test")):
        manipulation, _ = ManipulationType.objects.get_or_create(
            slug=slug, defaults={"label": slug.replace("-", " ")}
        )
        group = ChartGroup.objects.create(
            chart_set=chart_set, code=code, chart_type="bar", manipulation=manipulation
        )
        for q in range(1, 5):
            question = Question.objects.create(
                chart_set=chart_set, group=group, code=f"{code}_Q{q}",
                text="Which year had more? 1. 2018 2. 2019", answer_type="multiple_choice",
                options=["2018", "2019"], answer_key="2", key_value=1,
            )  # fmt: skip
            for version in (1, 2):
                chart = Chart(
                    question=question, version=version, chart_id=f"{code}_Q{q}_{version}",
                    manipulation=manipulation if version == 2 else none,
                )  # fmt: skip
                chart.image.save(
                    f"{code}{q}{version}.png", ContentFile(bar_chart_png(truncated=version == 2)),
                    save=False,
                )  # fmt: skip
                chart.width, chart.height = 480, 300
                chart.save()
    return make_study(owner, chart_set=chart_set, checks=(None,), min_gap=1)


def test_log_odds_from_the_database_recover_the_sign_and_order_of_known_effects(researcher):
    study = _two_group_study(researcher)
    study_simulate(study=study, participants=120, seed=3, timeout_rate=0)
    data = results_compute(study)
    fits = {(r["group"], r["estimator"].split(" ")[0]): r for r in data["log_odds"]}
    for estimator in ("BinomialBayesMixedGLM", "GEE"):
        g3, g10 = fits[("G3", estimator)], fits[("G10", estimator)]
        assert g3["log_odds_ratio"] > 0 and g10["log_odds_ratio"] > 0, estimator
        assert g3["log_odds_ratio"] > g10["log_odds_ratio"] + 1, estimator
        assert g3["p_m"] > g3["p_n"]
        assert g3["estimator"].startswith(estimator)
    kendall = data["kendall"]
    assert sorted(kendall["groups"]) == ["G10", "G3"] and kendall["tau"] == pytest.approx(1.0)


def test_an_empty_study_gives_messages_not_numbers(researcher):
    study = make_study(researcher, pairs=2)
    data = results_compute(study)
    assert data["funnel"]["included"] == 0
    assert any("No included participants" in m for m in data["messages"])
    assert all(c["hmi"] is None and c["n"] == 0 and c["note"] for c in data["charts"])
    assert data["log_odds"] == [] and "<svg" in data["svg"]["sorted"]


def test_a_chart_nobody_answered_and_a_degenerate_group_get_a_message(researcher):
    study = make_study(researcher, pairs=2, checks=())
    study_simulate(study=study, participants=4, seed=2, attention_fail_rate=0, timeout_rate=0)
    from studies.models import Response

    # Everyone right on both charts: the group's log odds are unbounded.
    Response.objects.filter(session__study=study).update(correct=True)
    data = results_compute(study)
    assert all(r["log_odds_ratio"] is None and r["message"] for r in data["log_odds"])
    assert data["chi_square"][0]["chi2"] is None and "undefined" in data["chi_square"][0]["message"]
    assert data["kendall"]["tau"] is None and data["kendall"]["message"]
