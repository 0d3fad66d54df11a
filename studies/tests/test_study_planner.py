"""The study planner page and API: numbers from analysis.planning, the study's own pilot and groups."""

import math

import pytest

from analysis.planning import n_for_half_width, n_for_power
from studies.selectors.planner import CHARTOM_EXCLUSION_RATE, PlanInput, study_plan
from studies.services.results.simulate import study_simulate
from studies.tests.factories import make_study

pytestmark = pytest.mark.django_db


def test_the_default_plan_is_the_worst_case_tenth(researcher):
    study = make_study(researcher, pairs=2, status="draft")
    plan = study_plan(study, PlanInput(pay=4.5))
    assert plan["included"] == n_for_half_width(0.10) == 93
    assert plan["recruit"] == math.ceil(93 / (1 - CHARTOM_EXCLUSION_RATE))
    assert plan["cost"] == pytest.approx(plan["recruit"] * 4.5)
    assert "no pilot" in plan["exclusion_source"] and plan["svg"].startswith("<svg")


def test_power_uses_table_1_for_the_studys_groups(researcher):
    study = make_study(researcher, pairs=2, status="draft")  # its group is coded G1
    plan = study_plan(study, PlanInput(mode="power", power=0.8, exclusion_rate=0, pay=1))
    assert plan["table_1_groups"] == ["G1"]
    assert plan["included"] == n_for_power(0.8, 0.51, 0.68) == plan["recruit"]


def test_a_named_effect_plans_for_the_worst_case_pair(researcher):
    study = make_study(researcher, pairs=2, status="draft")
    plan = study_plan(study, PlanInput(mode="power", effect=0.2, exclusion_rate=0))
    assert plan["included"] == n_for_power(0.8, 0.4, 0.6)


def test_the_exclusion_rate_comes_from_the_pilot(researcher):
    study = make_study(researcher, pairs=2, status="pilot", checks=(None,))
    study_simulate(study=study, participants=10, seed=3, attention_fail_rate=0.3, timeout_rate=0)
    failing = study.sessions.filter(attention_failures__gt=0).count()
    plan = study_plan(study, PlanInput())
    assert plan["exclusion_rate"] == pytest.approx(failing / 10)
    assert plan["exclusion_source"] == "from 10 finished pilot sessions"


def test_the_page_plans_and_links_to_the_stopping_rule(client, researcher):
    study = make_study(researcher, pairs=2, status="draft")
    client.force_login(researcher)
    page = client.get(f"/studies/study/{study.slug}/planner/").content.decode()
    assert 'id="plan-included">93<' in page and "<svg" in page
    page = client.get(
        f"/studies/study/{study.slug}/planner/",
        {"mode": "precision", "half_width": "0.15", "prior": "worst", "power": "0.8",
         "exclusion_rate": "0.2", "pay": "3"},
    ).content.decode()  # fmt: skip
    n = n_for_half_width(0.15)
    assert f'id="plan-included">{n}<' in page
    assert f'id="plan-recruit">{math.ceil(n / 0.8)}<' in page


def test_the_api_plans_and_refuses_a_plan_without_an_effect(researcher, researcher_api):
    study = make_study(researcher, pairs=2, status="draft")
    url = f"/api/v1/studies/{study.slug}/plan/"
    ok = researcher_api.post(
        url, {"half_width": 0.1, "exclusion_rate": 0.1, "pay": 2}, format="json"
    )
    assert ok.status_code == 200
    assert ok.json()["included"] == 93 and ok.json()["recruit"] == 104
    assert ok.json()["cost"] == 208.0
    study.study_pairs.all().delete()  # no groups left to take a Table 1 effect from
    refused = researcher_api.post(url, {"mode": "power"}, format="json")
    assert refused.status_code == 400 and "name the effect" in refused.json()["detail"]
    bad = researcher_api.post(url, {"half_width": 0.9}, format="json")
    assert bad.status_code == 400 and "half_width" in bad.json()["errors"]


def test_other_researchers_cannot_plan_someone_elses_study(researcher, other_researcher, client):
    study = make_study(researcher, pairs=2, status="draft")
    client.force_login(other_researcher)
    assert client.get(f"/studies/study/{study.slug}/planner/").status_code == 404


def test_the_api_lists_each_groups_needs_when_planning_power(researcher, researcher_api):
    study = make_study(researcher, pairs=2, status="draft")
    body = researcher_api.post(
        f"/api/v1/studies/{study.slug}/plan/", {"mode": "power", "exclusion_rate": 0}, format="json"
    ).json()
    assert body["per_pair"] == [
        {"name": "G1", "p_plain": 0.51, "p_manipulated": 0.68, "n": body["included"]}
    ]


def test_an_exclusion_rate_from_one_pilot_session_is_called_a_rough_guess(
    researcher, client, researcher_api
):
    study = make_study(researcher, pairs=2, status="pilot", checks=(None,))
    study_simulate(study=study, participants=1, seed=3, attention_fail_rate=0, timeout_rate=0)
    plan = study_plan(study, PlanInput())
    assert plan["exclusion_rate"] == 0
    assert plan["exclusion_rate_uncertain"] is True and plan["exclusion_pilot_sessions"] == 1
    assert "rough guess" in plan["exclusion_note"] and "at least 5" in plan["exclusion_note"]
    client.force_login(researcher)
    page = client.get(f"/studies/study/{study.slug}/planner/").content.decode()
    assert 'id="exclusion-note"' in page and "a rough guess)" in page
    body = researcher_api.post(f"/api/v1/studies/{study.slug}/plan/", {}, format="json").json()
    assert body["exclusion_rate_uncertain"] is True and body["exclusion_pilot_sessions"] == 1
    assert "rough guess" in body["exclusion_note"]
    # An entered rate is the researcher's own: nothing to warn about.
    entered = study_plan(study, PlanInput(exclusion_rate=0.2))
    assert entered["exclusion_rate_uncertain"] is False and entered["exclusion_note"] == ""


def test_five_pilot_sessions_give_a_rate_without_a_warning(researcher):
    study = make_study(researcher, pairs=2, status="pilot", checks=(None,))
    study_simulate(study=study, participants=5, seed=3, attention_fail_rate=0, timeout_rate=0)
    plan = study_plan(study, PlanInput())
    assert plan["exclusion_pilot_sessions"] == 5
    assert plan["exclusion_rate_uncertain"] is False and plan["exclusion_note"] == ""


def test_a_pilot_that_excluded_everyone_plans_with_a_note_instead_of_failing(
    researcher, client, researcher_api
):
    study = make_study(researcher, pairs=2, status="pilot", checks=(None,))
    study_simulate(study=study, participants=2, seed=3, attention_fail_rate=0, timeout_rate=1)
    plan = study_plan(study, PlanInput(pay=2))
    assert plan["exclusion_rate"] == CHARTOM_EXCLUSION_RATE
    assert plan["recruit"] == math.ceil(93 / (1 - CHARTOM_EXCLUSION_RATE))
    assert plan["exclusion_rate_uncertain"] is True and plan["exclusion_pilot_sessions"] == 2
    assert "excluded all 2 finished pilot sessions" in plan["exclusion_note"]
    client.force_login(researcher)
    response = client.get(f"/studies/study/{study.slug}/planner/")
    assert response.status_code == 200
    assert "excluded all 2 finished pilot sessions" in response.content.decode()
    api = researcher_api.post(f"/api/v1/studies/{study.slug}/plan/", {}, format="json")
    assert api.status_code == 200 and "excluded all 2" in api.json()["exclusion_note"]


def test_the_exclusion_rate_is_asked_for_as_a_fraction(client, researcher):
    study = make_study(researcher, pairs=2, status="draft")
    client.force_login(researcher)
    page = client.get(f"/studies/study/{study.slug}/planner/").content.decode()
    assert "Expected exclusion rate (a fraction)" in page and "0.15: 15 in 100" in page
    # A percentage typed by habit is refused with the bound, not planned as 1500%.
    page = client.get(
        f"/studies/study/{study.slug}/planner/",
        {"mode": "precision", "half_width": "0.1", "prior": "worst", "power": "0.8",
         "exclusion_rate": "15", "pay": "0"},
    ).content.decode()  # fmt: skip
    assert "less than or equal to 0.95" in page and 'id="plan-included"' not in page


def test_a_pay_beyond_any_budget_is_refused_not_overflowed(researcher, researcher_api, client):
    study = make_study(researcher, pairs=2, status="draft")
    url = f"/api/v1/studies/{study.slug}/plan/"
    refused = researcher_api.post(url, {"pay": 1e308}, format="json")
    assert refused.status_code == 400 and "pay" in refused.json()["errors"]
    assert researcher_api.post(url, {"pay": 999_999.99}, format="json").status_code == 200
    client.force_login(researcher)
    page = client.get(
        f"/studies/study/{study.slug}/planner/",
        {"mode": "precision", "half_width": "0.1", "prior": "worst", "power": "0.8",
         "pay": "1e308"},
    )  # fmt: skip
    assert page.status_code == 200 and 'id="plan-included"' not in page.content.decode()
    # One message for the one mistake (a digit count said the same again).
    assert page.context["form"].errors["pay"] == [
        "Ensure this value is less than or equal to 999999.99."
    ]
    cents = client.get(
        f"/studies/study/{study.slug}/planner/",
        {"mode": "precision", "half_width": "0.1", "prior": "worst", "power": "0.8",
         "pay": "2.505"},
    )  # fmt: skip
    assert "pay" in cents.context["form"].errors
