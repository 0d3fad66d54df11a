"""Study input the API does not take is a 400 (or 404, 409) that says why, and nothing changes."""

import pytest

from studies.models import Study
from studies.services.study import study_update
from studies.tests.factories import make_chart_set, make_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(researcher):
    return make_study(researcher, status="draft", pairs=2)


def _url(study, tail=""):
    return f"/api/v1/studies/{study.slug}/{tail}"


def test_a_status_in_a_patch_is_refused_naming_the_status_endpoint(researcher_api, draft):
    response = researcher_api.patch(_url(draft), {"status": "closed"}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert "POST /api/v1/studies/{slug}/status/" in body["errors"]["status"][0]
    assert "Read-only here: status." in body["detail"]
    assert Study.objects.get(pk=draft.pk).status == "draft"


def test_a_patch_with_a_bad_field_changes_none_of_the_good_ones(researcher_api, draft):
    response = researcher_api.patch(
        _url(draft), {"title": "Renamed", "status": "live"}, format="json"
    )
    assert response.status_code == 400
    assert Study.objects.get(pk=draft.pk).title != "Renamed"


def test_a_chart_set_in_a_patch_is_refused_naming_the_pairs_endpoint(researcher_api, draft):
    response = researcher_api.patch(_url(draft), {"chart_set": "nope"}, format="json")
    assert response.status_code == 400
    assert "PUT /api/v1/studies/{slug}/pairs/" in response.json()["errors"]["chart_set"][0]
    assert Study.objects.get(pk=draft.pk).chart_set_id == draft.chart_set_id


def test_unknown_fields_of_a_study_are_refused_and_listed(researcher_api, draft):
    response = researcher_api.patch(_url(draft), {"titel": "Typo", "colour": "red"}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert set(body["errors"]) == {"titel", "colour"}
    assert body["detail"].startswith("Unknown fields: titel, colour.")
    created = researcher_api.post("/api/v1/studies/", {"title": "X", "seeds": 3}, format="json")
    assert created.status_code == 400 and "seeds" in created.json()["errors"]
    assert not Study.objects.filter(title="X").exists()


def test_what_was_read_can_be_sent_back_unchanged(researcher_api, draft):
    body = researcher_api.get(_url(draft)).json()
    body["title"] = "Round trip"
    response = researcher_api.put(_url(draft), body, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["title"] == "Round trip"


def test_a_wrong_choice_names_the_choices(researcher_api, draft):
    response = researcher_api.post(_url(draft, "status/"), {"status": "open"}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"]["status"] == [
        "“open” is not a valid choice: choose one of draft, pilot, live, paused, closed."
    ]


def test_an_unsupported_language_is_a_404_naming_the_languages(researcher, researcher_api):
    study = make_study(researcher, status="draft", pairs=1)
    study_update(study=study, actor=researcher, other_languages=["de"])
    response = researcher_api.get(_url(study, "translations/xx/"))
    assert response.status_code == 404
    detail = response.json()["detail"]
    assert "'xx' is not a supported language" in detail and "further languages: de" in detail
    offered = researcher_api.get(_url(study, "translations/es/"))
    assert offered.status_code == 404
    assert "not offered in 'es'" in offered.json()["detail"]
    assert researcher_api.get(_url(study, "translations/de/")).status_code == 200


def test_a_session_id_beyond_any_row_is_a_400(researcher_api, draft):
    response = researcher_api.get(_url(draft, "sessions/12345678901234567890/"))
    assert response.status_code == 400
    assert "out of range" in response.json()["errors"]["pk"][0]
    assert researcher_api.get(_url(draft, "sessions/123/")).status_code == 404


def test_a_sessions_page_that_is_not_a_number_is_a_400(researcher_api, draft):
    response = researcher_api.get(_url(draft, "sessions/"), {"page": "abc"})
    assert response.status_code == 400
    assert "page" in response.json()["errors"]


def test_the_library_pairs_give_the_ids_put_pairs_takes(researcher_api, researcher):
    chart_set = make_chart_set(researcher, pairs=2)
    study = Study.objects.create(owner=researcher, title="Ids", slug="ids")
    listing = researcher_api.get(f"/api/v1/library/chart-sets/{chart_set.slug}/pairs/").json()
    ids = [pair["id"] for pair in listing["results"]]
    one = researcher_api.get(f"/api/v1/library/chart-sets/{chart_set.slug}/pairs/G1_Q1/").json()
    assert one["id"] == ids[0]
    response = researcher_api.put(
        _url(study, "pairs/"), {"chart_set": chart_set.slug, "questions": ids}, format="json"
    )
    assert response.status_code == 200 and [p["id"] for p in response.json()] == ids


def test_pairs_that_would_replace_the_chosen_ones_are_a_409_until_confirmed(
    researcher_api, researcher, draft
):
    before = list(draft.study_pairs.values_list("question_id", flat=True))
    other = make_chart_set(researcher, pairs=3)
    body = {"chart_set": other.slug, "all": True}
    refused = researcher_api.put(_url(draft, "pairs/"), body, format="json")
    assert refused.status_code == 409
    answer = refused.json()
    assert answer["replaced"] == 2 and answer["code"] == "pairs_replaced"
    assert "replace=true" in answer["detail"]
    draft.refresh_from_db()
    assert list(draft.study_pairs.values_list("question_id", flat=True)) == before
    assert draft.chart_set_id != other.pk

    done = researcher_api.put(_url(draft, "pairs/"), {**body, "replace": True}, format="json")
    assert done.status_code == 200 and len(done.json()) == 3
    draft.refresh_from_db()
    assert draft.chart_set_id == other.pk


def test_leaving_out_a_chosen_pair_also_needs_replace_but_adding_does_not(
    researcher_api, researcher
):
    chart_set = make_chart_set(researcher, pairs=3)
    study = Study.objects.create(owner=researcher, title="Grow", slug="grow")
    ids = list(chart_set.questions.order_by("code").values_list("id", flat=True))
    url = _url(study, "pairs/")
    put = researcher_api.put
    first = put(url, {"chart_set": chart_set.slug, "questions": ids[:2]}, format="json")
    assert first.status_code == 200
    grown = put(url, {"chart_set": chart_set.slug, "questions": ids}, format="json")
    assert grown.status_code == 200 and len(grown.json()) == 3
    shrunk = put(url, {"chart_set": chart_set.slug, "questions": ids[:1]}, format="json")
    assert shrunk.status_code == 409 and shrunk.json()["replaced"] == 2
    assert study.study_pairs.count() == 3


def test_results_refuse_an_svg_that_is_no_yes_or_no(researcher_api, draft):
    from django.urls import reverse

    for name in ("api:study-results", "api:study-model-results"):
        url = reverse(name, args=[draft.slug])
        wrong = researcher_api.get(url, {"svg": "maybe"})
        assert wrong.status_code == 400 and "svg" in wrong.json()["errors"], name
        typo = researcher_api.get(url, {"svgs": "1"})
        assert typo.status_code == 400 and "svgs" in typo.json()["errors"], name
        assert researcher_api.get(url, {"svg": "true"}).status_code == 200, name


def test_pairs_with_both_a_list_and_all_are_refused(researcher_api, researcher):
    chart_set = make_chart_set(researcher, pairs=2)
    study = Study.objects.create(owner=researcher, title="Both", slug="both")
    one = chart_set.questions.order_by("code").first().pk
    body = {"chart_set": chart_set.slug, "questions": [one], "all": True}
    response = researcher_api.put(_url(study, "pairs/"), body, format="json")
    assert response.status_code == 400
    assert response.json()["errors"]["questions"] == [
        "Send either questions or all=true, not both."
    ]
    assert study.study_pairs.count() == 0


def test_a_minimum_median_time_beyond_ten_minutes_is_refused(researcher_api, researcher):
    study = make_study(researcher, pairs=2, status="draft")
    url = f"/api/v1/studies/{study.slug}/"
    for value in (1e308, 601):
        refused = researcher_api.patch(url, {"min_seconds_per_trial": value}, format="json")
        assert refused.status_code == 400 and "min_seconds_per_trial" in refused.json()["errors"]
    ok = researcher_api.patch(url, {"min_seconds_per_trial": 600}, format="json")
    assert ok.status_code == 200 and ok.json()["min_seconds_per_trial"] == 600
