"""Publishing a study that is ready: blockers with links, warnings to confirm, starter texts."""

import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from core.models import AuditEntry
from studies.models import Study
from studies.selectors.readiness import study_blockers, study_warnings
from studies.services import study as setup
from studies.starter_texts import starter_texts
from studies.tests.factories import make_chart_set, make_study

pytestmark = pytest.mark.django_db


def codes(items):
    return [item.code for item in items]


def empty_study(researcher):
    study = make_study(researcher, status="draft", pairs=2, checks=())
    study.study_pairs.all().delete()
    study.consent_text = study.instructions_text = study.completion_code = ""
    study.save()
    return study


# ------------------------------------------------------------------ blockers


def test_each_blocker_names_what_fixes_it(researcher):
    study = empty_study(researcher)
    fixes = {item.code: item.fix for item in study_blockers(study)}
    assert fixes == {
        "no_pairs": "pairs",
        "consent_text": "consent_text",
        "instructions_text": "instructions_text",
        "completion": "completion_code",
    }


def test_publishing_buttons_are_disabled_while_blockers_link_to_their_fields(signed_in, researcher):
    study = empty_study(researcher)
    html = signed_in.get(reverse("studies:detail", args=[study.slug])).content.decode()
    for label in ("Start pilot", "Go live"):
        button = re.search(rf"<button[^>]*>{label}</button>", html).group(0)
        assert " disabled" in button and 'form="publish-form"' in button
    edit = reverse("studies:edit", args=[study.slug])
    assert f'<a href="{reverse("studies:pairs", args=[study.slug])}">Choose at least one' in html
    assert f'<a href="{edit}#id_consent_text">Write the consent text.</a>' in html
    assert f'<a href="{edit}#id_instructions_text">Write the instructions.</a>' in html
    assert f'<a href="{edit}#id_completion_code">Give a completion code' in html
    # The settings page has the fields the anchors point at.
    settings_page = signed_in.get(edit).content.decode()
    for name in ("consent_text", "instructions_text", "completion_code"):
        assert f'id="id_{name}"' in settings_page

    ready = make_study(researcher, status="draft")
    html = signed_in.get(reverse("studies:detail", args=[ready.slug])).content.decode()
    button = re.search(r"<button[^>]*>Go live</button>", html).group(0)
    assert " disabled" not in button
    assert "Before it can run" not in html


def test_a_blocked_study_stays_a_draft_even_if_the_button_is_forced(signed_in, researcher):
    study = empty_study(researcher)
    signed_in.post(
        reverse("studies:status", args=[study.slug]), {"status": "live", "confirm_warnings": "1"}
    )
    study.refresh_from_db()
    assert study.status == "draft"


def test_a_pair_problem_links_to_the_pair_in_the_library(signed_in, researcher):
    study = make_study(researcher, status="draft")
    question = study.study_pairs.first().question
    question.charts.filter(version=2).delete()
    html = signed_in.get(reverse("studies:detail", args=[study.slug])).content.decode()
    url = reverse("studies:pair-detail", args=[question.chart_set.slug, question.code])
    assert f'<a href="{url}">Pair {question.code} lacks one of its two charts.</a>' in html


# ------------------------------------------------------------------ warnings


def test_the_warnings_a_study_can_have(researcher):
    assert study_warnings(make_study(researcher, status="draft")) == []
    study = make_study(
        researcher,
        status="draft",
        checks=(),
        platform="pid",
        completion_code="",
        time_limit_minutes=20,
        expected_minutes=25,
    )
    assert codes(study_warnings(study)) == [
        "no_attention_checks",
        "no_completion",
        "time_limit_short",
    ]
    assert "(20 min) is shorter than the expected duration (25 min)" in " ".join(
        w.message for w in study_warnings(study)
    )
    # On a recruitment platform a missing completion is a blocker, not also a warning.
    prolific = make_study(researcher, status="draft", completion_code="")
    assert "completion" in codes(study_blockers(prolific))
    assert "no_completion" not in codes(study_warnings(prolific))


def test_going_live_with_warnings_needs_a_confirmation(researcher):
    study = make_study(researcher, status="draft", checks=())
    with pytest.raises(setup.WarningsNotConfirmed) as caught:
        setup.study_status_change(study=study, status="live", actor=researcher)
    assert codes(caught.value.warnings) == ["no_attention_checks"]
    assert isinstance(caught.value, ValidationError)
    study.refresh_from_db()
    assert study.status == "draft"
    setup.study_status_change(study=study, status="pilot", actor=researcher, confirm_warnings=True)
    # Going live after the pilot asks again; resuming a paused study does not.
    with pytest.raises(setup.WarningsNotConfirmed):
        setup.study_status_change(study=study, status="live", actor=researcher)
    setup.study_status_change(study=study, status="live", actor=researcher, confirm_warnings=True)
    setup.study_status_change(study=study, status="paused", actor=researcher)
    setup.study_status_change(study=study, status="live", actor=researcher)
    assert study.status == "live"
    log = AuditEntry.objects.filter(action="study.status").order_by("id").first()
    assert log.details["warnings"] == ["no_attention_checks"]


def test_the_page_asks_to_confirm_the_warnings(signed_in, researcher):
    study = make_study(researcher, status="draft", checks=())
    detail = reverse("studies:detail", args=[study.slug])
    html = signed_in.get(detail).content.decode()
    assert "Check before you publish" in html
    assert f'<a href="{reverse("studies:checks", args=[study.slug])}">The study has no' in html
    assert 'name="confirm_warnings" value="1" form="publish-form"' in html

    url = reverse("studies:status", args=[study.slug])
    refused = signed_in.post(url, {"status": "live"}, follow=True)
    assert "read the warnings below" in refused.content.decode()
    study.refresh_from_db()
    assert study.status == "draft"
    signed_in.post(url, {"status": "live", "confirm_warnings": "1"})
    study.refresh_from_db()
    assert study.status == "live"


def test_the_api_answers_409_with_the_warnings_until_they_are_confirmed(researcher_api, researcher):
    study = make_study(
        researcher, status="draft", checks=(), time_limit_minutes=10, expected_minutes=15
    )
    url = f"/api/v1/studies/{study.slug}/status/"
    refused = researcher_api.post(url, {"status": "pilot"}, format="json")
    assert refused.status_code == 409
    body = refused.json()
    assert "confirm_warnings" in body["detail"]
    assert [w["code"] for w in body["warnings"]] == ["no_attention_checks", "time_limit_short"]
    assert [w["field"] for w in body["warnings"]] == ["checks", "time_limit_minutes"]
    assert len(body["errors"]["confirm_warnings"]) == 2
    study.refresh_from_db()
    assert study.status == "draft"
    done = researcher_api.post(url, {"status": "pilot", "confirm_warnings": True}, format="json")
    assert done.status_code == 200 and done.json()["status"] == "pilot"


def test_the_api_lists_blockers_and_warnings(researcher_api, researcher):
    study = empty_study(researcher)
    body = researcher_api.get(f"/api/v1/studies/{study.slug}/readiness/").json()
    assert body["ready"] is False
    assert {
        "code": "consent_text",
        "message": "Write the consent text.",
        "field": "consent_text",
    } in (body["blockers"])
    assert [w["code"] for w in body["warnings"]] == ["no_attention_checks"]
    blocked = researcher_api.post(
        f"/api/v1/studies/{study.slug}/status/",
        {"status": "live", "confirm_warnings": True},
        format="json",
    )
    assert (
        blocked.status_code == 400
        and "Write the consent text." in blocked.json()["errors"]["status"]
    )


# ------------------------------------------------------------------ starter texts


def test_starter_texts_follow_the_studys_settings(researcher):
    study = make_study(researcher, time_limit_minutes=45, expected_minutes=15, completion_code="X1")
    texts = starter_texts(study)
    # What to do next is the debrief page's own line, from the settings when it is shown:
    # a text written before a completion code was set must not say "close this window".
    for code, url in (
        ("X1", ""),
        ("", ""),
        ("", "https://app.prolific.com/submissions/complete?cc=X1"),
    ):
        study.completion_code, study.completion_url = code, url
        debrief = starter_texts(study)["debrief_text"].lower()
        assert "close this window" not in debrief and "code" not in debrief
    # Time and withdrawal are the pages' own sentences (test_participant_wording), not the texts'.
    for text in texts.values():
        assert "minute" not in text and "withdraw" not in text


def test_the_settings_page_offers_starter_texts_and_warns_of_unfilled_brackets(
    signed_in, researcher
):
    study = empty_study(researcher)
    html = signed_in.get(reverse("studies:edit", args=[study.slug])).content.decode()
    for name in ("consent_text", "instructions_text", "debrief_text"):
        assert f'data-starter-for="id_{name}" data-starter-text="starter_{name}"' in html
    assert "[ethics board, approval number]" in html
    assert "js/starter_text.js" in html

    study.consent_text = starter_texts(study)["consent_text"]
    study.save()
    assert "consent_text_placeholder" in codes(study_warnings(study))
    study.consent_text = "Filled in by the researcher."
    study.save()
    assert "consent_text_placeholder" not in codes(study_warnings(study))


def test_the_api_gives_starter_texts(researcher_api, researcher):
    study = make_study(researcher, status="draft")
    body = researcher_api.get(f"/api/v1/studies/{study.slug}/starter-texts/").json()
    assert set(body) == {"consent_text", "instructions_text", "debrief_text"}
    assert body == starter_texts(study)
    study.refresh_from_db()
    assert study.consent_text.startswith("You agree")  # nothing was saved


# ------------------------------------------------------------------ pairs


def test_using_every_complete_pair_shows_the_chosen_pairs(signed_in, researcher):
    study = make_study(researcher, status="draft")
    other = make_chart_set(researcher, pairs=4)
    url = reverse("studies:pairs", args=[study.slug])
    # The study's three pairs are replaced: the confirmation step's replace=1 is sent.
    body = {"chart_set": other.slug, "all": "1", "replace": "1"}
    response = signed_in.post(url, body, follow=True)
    assert response.redirect_chain[-1][0] == f"{url}?set={other.slug}"
    html = response.content.decode()
    assert "Pairs saved: the study uses 4 pairs." in html
    assert "Chosen pairs (4)" in html
    chosen = html[html.index("chosen-heading") : html.index('id="set-heading"')]
    for code in other.questions.values_list("code", flat=True):
        assert f"<td>{code}</td>" in chosen
    assert Study.objects.get(pk=study.pk).chart_set == other


@pytest.mark.parametrize("endpoint", ["readiness", "starter-texts"])
def test_only_the_studys_researchers_read_its_readiness_and_starter_texts(
    endpoint, researcher, other_researcher, annotator, api_client
):
    study = make_study(researcher, status="draft")
    url = f"/api/v1/studies/{study.slug}/{endpoint}/"
    assert api_client.get(url).status_code == 401
    api_client.force_authenticate(annotator)
    assert api_client.get(url).status_code == 403
    api_client.force_authenticate(other_researcher)
    assert api_client.get(url).status_code == 404
    study.collaborators.add(other_researcher)
    assert api_client.get(url).status_code == 200


def test_saving_no_pairs_is_a_warning_not_a_success(signed_in, researcher):
    study = make_study(researcher, status="draft")
    url = reverse("studies:pairs", args=[study.slug])
    body = {"chart_set": study.chart_set.slug, "replace": "1"}  # nothing ticked
    html = signed_in.post(url, body, follow=True).content.decode()
    assert "Pairs saved" not in html
    assert '<li class="message warning">No pairs chosen: the study has no charts now.' in html
    assert not study.study_pairs.exists()


def test_a_one_pair_study_is_told_to_add_pairs_not_to_lower_the_gap(researcher):
    study = make_study(researcher, pairs=1)
    (item,) = [b for b in study_blockers(study) if b.code == "min_gap"]
    assert item.fix == "pairs" and "at least 2 pairs" in item.message
    assert "lower the gap" not in item.message
    two = make_study(researcher, pairs=2, min_gap=2)
    (item,) = [b for b in study_blockers(two) if b.code == "min_gap"]
    assert item.fix == "min_gap" and "lower the gap or add pairs" in item.message


def test_status_changes_read_as_sentences_and_a_closed_studys_link_says_it_takes_no_one(
    signed_in, researcher
):
    study = make_study(researcher, status="draft")
    url = reverse("studies:status", args=[study.slug])
    page = signed_in.post(
        url, {"status": "pilot", "confirm_warnings": "1"}, follow=True
    ).content.decode()
    assert "The study is now in pilot." in page
    assert f"Give this to {study.get_platform_display()}." in page
    for status in ("live", "closed"):
        page = signed_in.post(
            url, {"status": status, "confirm_warnings": "1"}, follow=True
        ).content.decode()
        assert f"The study is now {status}." in page
    assert "The study is closed: the link shows a page saying so, and takes no one." in page
    assert "Give this to" not in page
