"""Comparing two studies' rankings of manipulation groups: Kendall's tau, pages and API."""

import pytest
from django.template.loader import render_to_string
from django.utils import timezone, translation
from rest_framework.test import APIClient
from scipy.stats import kendalltau

from analysis.log_odds import GEE_ESTIMATOR, MIXED_ESTIMATOR
from studies.models import StudyResults
from studies.selectors.results_compare import study_comparison
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def _row(group, manipulation, value, estimator=MIXED_ESTIMATOR):
    return {"group": group, "manipulation": manipulation, "log_odds_ratio": value,
            "estimator": estimator}  # fmt: skip


def _with_results(study, rows):
    StudyResults.objects.update_or_create(
        study=study, defaults={"data": {"log_odds": rows}, "computed_at": timezone.now()}
    )
    return study


@pytest.fixture
def pair(researcher):
    here = _with_results(make_study(researcher, pairs=2), [
        _row("G1", "Truncated y-axis", 2.0),
        _row("G2", "Inverted y-axis", 1.0),
        _row("G3", "Log scale", 0.5),
        _row("G4", "Area encoding", 0.1),
        _row("G5", "Dual axis", 0.7),                       # only here
        _row("G1", "Truncated y-axis", -9.0, GEE_ESTIMATOR),  # another estimator: ignored
    ])  # fmt: skip
    there = _with_results(make_study(researcher, pairs=2), [
        # Other group codes for the same manipulations: matched by manipulation.
        _row("G7", "truncated Y-axis", 1.5),
        _row("G8", "Inverted y-axis", 1.2),
        _row("G9", "Log scale", 0.2),
        _row("G10", "Area encoding", 0.4),
        _row("G11", "3D pie", 0.3),                          # only there
        _row("G12", "Missing fit", None),  # not fitted: ignored
    ])  # fmt: skip
    return here, there


def test_tau_over_the_shared_manipulations_by_hand_and_by_scipy(pair):
    here, there = pair
    result = study_comparison(here, there)
    # Pairs of the 4 shared groups: 5 concordant, 1 discordant (log scale vs area):
    # tau = (5 - 1) / 6.
    assert result["tau"] == pytest.approx(4 / 6)
    expected = kendalltau([2.0, 1.0, 0.5, 0.1], [1.5, 1.2, 0.2, 0.4])
    assert result["tau"] == pytest.approx(expected.statistic)
    assert result["p_value"] == pytest.approx(expected.pvalue)
    assert [g["manipulation"] for g in result["groups"]] == [
        "Truncated y-axis", "Inverted y-axis", "Log scale", "Area encoding",
    ]  # fmt: skip
    assert result["groups"][0]["other_group"] == "G7"
    assert result["only_here"] == ["Dual axis"] and result["only_there"] == ["3D pie"]


def test_fewer_than_two_shared_groups_is_a_message_not_a_number(researcher):
    a = _with_results(make_study(researcher, pairs=2), [_row("G1", "Truncated y-axis", 1.0)])
    b = _with_results(make_study(researcher, pairs=2), [_row("G1", "Truncated y-axis", 2.0)])
    result = study_comparison(a, b)
    assert result["tau"] is None and "they share 1" in result["message"]


def test_the_page_and_api_compare_only_the_researchers_own_studies(
    pair, client, researcher, other_researcher, password
):
    here, there = pair
    foreign = _with_results(make_study(other_researcher, pairs=2), [
        _row("G1", "Truncated y-axis", 1.0), _row("G2", "Inverted y-axis", 2.0),
    ])  # fmt: skip
    client.login(username=researcher.username, password=password)
    page = client.get(f"/studies/study/{here.slug}/results/?compare={there.slug}")
    html = page.content.decode()
    assert page.status_code == 200 and 'id="comparison"' in html
    assert "τ = <strong>0.67</strong>" in html
    assert foreign.title not in html  # never offered
    ignored = client.get(f"/studies/study/{here.slug}/results/?compare={foreign.slug}")
    assert 'id="comparison"' not in ignored.content.decode()

    api = APIClient()
    api.force_authenticate(researcher)
    body = api.get(f"/api/v1/studies/{here.slug}/results/compare/{there.slug}/").json()
    assert body["tau"] == pytest.approx(4 / 6) and len(body["groups"]) == 4
    assert (
        api.get(f"/api/v1/studies/{here.slug}/results/compare/{foreign.slug}/").status_code == 404
    )
    itself = api.get(f"/api/v1/studies/{here.slug}/results/compare/{here.slug}/")
    assert itself.status_code == 400 and "another of your studies" in itself.json()["detail"]
    api.force_authenticate(other_researcher)
    assert api.get(f"/api/v1/studies/{here.slug}/results/compare/{there.slug}/").status_code == 404


def test_a_snapshot_saved_before_charts_were_listed_still_shows(pair, client, researcher, password):
    here, _ = pair  # its snapshot has log odds but no "charts" list
    client.login(username=researcher.username, password=password)
    page = client.get(f"/studies/study/{here.slug}/results/")
    assert page.status_code == 200
    assert "Truncated y-axis" in page.content.decode()


@pytest.fixture
def one_not_fitted(researcher):
    here = _with_results(make_study(researcher, pairs=2), [
        _row("G1", "Truncated y-axis", 2.0),
        _row("G2", "Inverted y-axis", 1.0),
        _row("G3", "Dual axis", 0.7),
        _row("G4", "Log scale", None),  # there fitted, here not
    ])  # fmt: skip
    there = _with_results(make_study(researcher, pairs=2), [
        _row("G1", "Truncated y-axis", 1.5),
        _row("G2", "Inverted y-axis", 1.2),
        _row("G3", "Dual axis", None),  # here fitted, there not: every answer right, say
        _row("G4", "Log scale", 0.3),
    ])  # fmt: skip
    return here, there


def test_a_group_the_other_study_could_not_fit_is_not_called_only_here(one_not_fitted):
    here, there = one_not_fitted
    result = study_comparison(here, there)
    assert result["only_here"] == [] and result["only_there"] == []
    assert result["not_estimated_there"] == ["Dual axis"]
    assert result["not_estimated_here"] == ["Log scale"]
    assert len(result["groups"]) == 2


def test_a_group_only_in_the_groups_table_counts_as_there_but_not_estimated(researcher):
    here = _with_results(make_study(researcher, pairs=2), [_row("G1", "Dual axis", 0.7)])
    there = make_study(researcher, pairs=2)
    # Results computed without model fits (no included participant yet) list the groups only.
    StudyResults.objects.create(
        study=there,
        data={"groups": [{"group": "G5", "manipulation": "Dual axis"}], "log_odds": []},
        computed_at=timezone.now(),
    )
    result = study_comparison(here, there)
    assert result["only_here"] == [] and result["not_estimated_there"] == ["Dual axis"]


def test_the_page_says_which_groups_were_not_estimated_in_a_translatable_sentence(
    one_not_fitted, client, researcher, password
):
    here, there = one_not_fitted
    client.login(username=researcher.username, password=password)
    url = f"/studies/study/{here.slug}/results/?compare={there.slug}"
    html = client.get(url).content.decode()
    assert "not estimated in the other study: Dual axis." in html
    assert "not estimated in this study: Log scale." in html
    assert "only here" not in html and "only in this study" not in html
    # Researcher pages render in English; the sentence is marked for translation all the same.
    with translation.override("de"):
        german = render_to_string(
            "studies/results/_compare.html", {"comparison": study_comparison(here, there)}
        )
    assert "in der anderen Studie nicht geschätzt: Dual axis." in german
