"""A study in several languages: the participant's language, the texts in it, resume."""

import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from studies.models import AnswerType, ParticipantSession, Response
from studies.selectors.languages import language_choose, translation_gaps
from studies.selectors.readiness import study_blockers, study_warnings
from studies.selectors.study import trial_current
from studies.services.study import study_translation_set, study_update
from studies.tests.factories import make_study
from studies.views.study_forms import StudySettingsForm

pytestmark = pytest.mark.django_db

PID = "5f1d2c3b4a5968778695a4b3"
GERMAN_CONSENT = "Sie stimmen zu, Fragen zu Diagrammen zu beantworten."


def german_study(owner, *, checks=(None,), **settings):
    study = make_study(owner, pairs=3, checks=checks, **settings)
    study_update(study=study, actor=owner, other_languages=["de"])
    questions = {
        str(q.pk): {"text": f"Frage {q.code}?", "options": [f"Option {o}" for o in q.options]}
        for q in study.pairs.all()
    }
    check_texts = {
        str(c.pk): {"prompt": "Wählen Sie „Stimme voll zu“.",
                    "options": ["Gar nicht", "Nein", "Ja", "Voll"]}
        for c in study.attention_checks.all()
    }  # fmt: skip
    study_translation_set(
        study=study,
        actor=owner,
        language="de",
        texts={
            "consent_text": GERMAN_CONSENT,
            "instructions_text": "Beantworten Sie jede Frage so genau wie möglich.",
            "debrief_text": "Danke schön.",
            "questions": questions,
            "checks": check_texts,
        },
    )  # fmt: skip
    study.refresh_from_db()
    return study


def consent_url(study, **query):
    params = {"PROLIFIC_PID": PID, "STUDY_ID": "st1", "SESSION_ID": "se1", **query}
    return (
        reverse("participate:consent", args=[study.slug])
        + "?"
        + "&".join(f"{k}={v}" for k, v in params.items())
    )


def test_the_language_comes_from_the_link_then_the_browser_then_the_primary(researcher):
    study = german_study(researcher)
    assert language_choose(study, asked="de") == "de"
    assert language_choose(study, asked="fr", accept_language="de-DE,de;q=0.9") == "de"
    assert language_choose(study, accept_language="fr-FR, es;q=0.8") == "en"
    assert language_choose(study, accept_language="en;q=0.2, de;q=0.9") == "de"
    assert language_choose(study, asked="es", accept_language="es") == "en"  # not offered


def test_a_german_link_shows_the_german_consent_in_a_german_page(client, researcher):
    study = german_study(researcher)
    page = client.get(consent_url(study, lang="de")).content.decode()
    assert GERMAN_CONSENT in page
    assert '<html lang="de"' in page
    assert "Ich stimme zu und möchte teilnehmen" in page  # the platform's words too
    assert 'name="lang" value="de"' in page
    english = client.get(consent_url(study)).content.decode()
    assert study.consent_text in english and GERMAN_CONSENT not in english
    assert "I agree and want to take part" in english


def test_the_browser_language_chooses_when_the_link_does_not(client, researcher):
    study = german_study(researcher)
    page = client.get(consent_url(study), HTTP_ACCEPT_LANGUAGE="de-AT,de;q=0.9,en;q=0.5")
    assert GERMAN_CONSENT in page.content.decode()


def test_the_session_keeps_its_language_and_scores_a_german_number(client, researcher):
    study = german_study(researcher)
    response = client.post(
        reverse("participate:consent", args=[study.slug]),
        {"choice": "agree", "PROLIFIC_PID": PID, "STUDY_ID": "st1", "lang": "de"},
    )
    assert response.status_code == 302
    session = ParticipantSession.objects.get(study=study)
    assert session.language == "de"
    url = reverse("participate:session", args=[session.token])
    page = client.get(url).content.decode()
    assert "Beantworten Sie jede Frage" in page and '<html lang="de"' in page
    client.post(reverse("participate:begin", args=[session.token]))
    while True:
        session.refresh_from_db()
        if session.status != ParticipantSession.Status.IN_PROGRESS:
            break
        trial = trial_current(session)
        if trial is None:
            break
        page = client.get(url).content.decode()
        data = {"position": trial.position, "key": f"k{trial.position}"}
        if trial.is_attention:
            assert "Wählen Sie „Stimme voll zu“." in page and "Voll" in page
            data["choice"] = "3"
        elif trial.question.answer_type == AnswerType.FREE_TEXT:
            assert f"Frage {trial.question.code}?" in page
            data["number"] = "1,2"
        elif trial.question.answer_type == AnswerType.MULTIPLE_CHOICE:
            assert "Option 2019" in page
            data["choice"] = "1"
        else:
            assert "Option Alpha" in page
            for rank in range(3):
                data[f"rank_{rank}"] = str(rank + 1)
        client.post(reverse("participate:answer", args=[session.token]), data)
        if session.current_position == trial.position:
            session.refresh_from_db()

    def stored(answer_type):
        rows = Response.objects.filter(session=session, trial__question__answer_type=answer_type)
        return {(r.raw_answer, repr(r.value), r.correct) for r in rows}

    assert stored("free_text") == {("1,2", "1.2", True)}
    # Stored in the primary language, whatever language was shown.
    assert stored("ranking") == {('["Alpha", "Beta", "Gamma"]', "['Alpha', 'Beta', 'Gamma']", True)}
    assert {(v, ok) for _r, v, ok in stored("multiple_choice")} == {("1", True)}
    client.post(reverse("participate:finish", args=[session.token]))
    page = client.get(url).content.decode()
    assert "Danke schön." in page and '<html lang="de"' in page


def test_a_german_session_is_asked_about_an_ambiguous_number(client, researcher):
    study = german_study(researcher, checks=())
    client.post(
        reverse("participate:consent", args=[study.slug]),
        {"choice": "agree", "PROLIFIC_PID": PID, "STUDY_ID": "st1", "lang": "de"},
    )
    session = ParticipantSession.objects.get(study=study)
    client.post(reverse("participate:begin", args=[session.token]))
    trial = trial_current(session)
    while trial.question.answer_type != AnswerType.FREE_TEXT:
        data = {"position": trial.position, "key": f"k{trial.position}", "choice": "1"}
        for rank in range(3):
            data[f"rank_{rank}"] = str(rank + 1)
        client.post(reverse("participate:answer", args=[session.token]), data)
        session.refresh_from_db()
        trial = trial_current(session)
    client.post(
        reverse("participate:answer", args=[session.token]),
        {"position": trial.position, "key": "x", "number": "1,200"},
    )
    page = client.get(reverse("participate:session", args=[session.token])).content.decode()
    assert "lässt sich auf zwei Arten lesen" in page  # the German wording of the question
    assert not Response.objects.filter(trial=trial).exists()


def test_languages_are_checked_against_the_settings(researcher):
    study = make_study(researcher, pairs=1)
    with pytest.raises(ValidationError, match="Not offered: fr"):
        study_update(study=study, actor=researcher, other_languages=["fr"])
    with pytest.raises(ValidationError, match="Add the language"):
        study_translation_set(study=study, actor=researcher, language="es", texts={})
    study_update(study=study, actor=researcher, language="de", other_languages=["de", "en"])
    assert study.languages == ["de", "en"]


def test_translated_options_must_match_the_original_in_number(researcher):
    study = make_study(researcher, pairs=1, checks=())
    study_update(study=study, actor=researcher, other_languages=["es"])
    question = study.pairs.get()
    with pytest.raises(ValidationError, match="Give all 2 options"):
        study_translation_set(
            study=study,
            actor=researcher,
            language="es",
            texts={"questions": {str(question.pk): {"text": "¿Qué año?", "options": ["2018"]}}},
        )


def test_a_missing_consent_translation_blocks_and_other_gaps_warn(researcher):
    study = make_study(researcher, pairs=1, checks=(None,))
    study_update(study=study, actor=researcher, other_languages=["es"])
    blockers = {b.code: b for b in study_blockers(study)}
    assert blockers["translation_consent"].message == (
        "Español: no translation yet of the consent text."
    )
    warnings = [w.message for w in study_warnings(study) if w.code == "translation_missing"]
    assert any("question of pair G1_Q1" in m for m in warnings)
    assert any("attention check 1" in m for m in warnings)
    study = german_study(researcher)
    assert [g.what for g in translation_gaps(study)] == ["title"]  # no description to translate


def test_the_languages_page_saves_a_translation(client, researcher):
    study = make_study(researcher, pairs=1, checks=())
    study_update(study=study, actor=researcher, other_languages=["de"])
    question = study.pairs.get()
    client.force_login(researcher)
    url = reverse("studies:languages", args=[study.slug])
    page = client.get(url)
    assert page.status_code == 200 and "Deutsch" in page.content.decode()
    response = client.post(
        url + "?lang=de",
        {
            "consent_text": GERMAN_CONSENT,
            f"q{question.pk}_text": "Welches Jahr?",
            f"q{question.pk}_options": "2018\n2019",
        },
    )
    assert response.status_code == 302
    study.refresh_from_db()
    assert study.translations["de"]["consent_text"] == GERMAN_CONSENT
    assert study.translations["de"]["questions"][str(question.pk)] == {
        "text": "Welches Jahr?",
        "options": ["2018", "2019"],
    }


def test_the_settings_page_lists_further_languages_under_a_legend_without_the_primary(
    client, researcher
):
    study = make_study(researcher, pairs=1, status="draft")
    study_update(study=study, actor=researcher, other_languages=["de"])
    client.force_login(researcher)
    url = reverse("studies:edit", args=[study.slug])
    html = client.get(url).content.decode()
    offered = re.findall(r'name="other_languages" value="(\w+)"', html)
    assert offered == ["de", "es"]
    # The label is the list's legend, above it, not a label wrapped round the checkboxes.
    assert re.search(r"<legend>Further languages</legend>\s*<div id=\"id_other_languages\"", html)
    assert "<label><div" not in html
    # A page ticked before the primary changed may still send it among the others: dropped.
    form = StudySettingsForm({"language": "de", "other_languages": ["de", "en"]}, study=study)
    assert [c for c, _ in form.fields["other_languages"].choices] == ["en", "es"]
    form.is_valid()
    assert "other_languages" not in form.errors
    assert form.cleaned_data["other_languages"] == ["en"]


def test_translated_options_show_under_an_untranslated_question_and_the_other_way_round(
    researcher,
):
    from studies.selectors.languages import check_texts, question_texts

    study = make_study(researcher, pairs=3, checks=(None,))
    study_update(study=study, actor=researcher, other_languages=["de"])
    with_options = [q for q in study.pairs.all() if q.options]
    only_options, only_text = with_options[0], with_options[-1]
    check = study.attention_checks.get()
    study_translation_set(
        study=study,
        actor=researcher,
        language="de",
        texts={
            "questions": {
                str(only_options.pk): {"options": [f"Option {o}" for o in only_options.options]},
                str(only_text.pk): {"text": "Nur die Frage?"},
            },
            "checks": {str(check.pk): {"options": ["Gar nicht", "Nein", "Ja", "Voll"]}},
        },
    )
    study.refresh_from_db()

    shown = question_texts(study, only_options, "de")
    assert shown.options == [f"Option {o}" for o in only_options.options]
    assert shown.prompt == question_texts(study, only_options, "en").prompt  # the original
    shown = question_texts(study, only_text, "de")
    assert shown.prompt == "Nur die Frage?"
    assert shown.options == question_texts(study, only_text, "en").options
    shown = check_texts(study, check, "de")
    assert shown.options == ["Gar nicht", "Nein", "Ja", "Voll"]
    assert shown.prompt == check.prompt


def test_the_languages_page_shows_every_problem_at_once_and_holds_the_title_to_200(
    client, researcher
):
    study = make_study(researcher, pairs=1, checks=(None,))
    study_update(study=study, actor=researcher, other_languages=["de"])
    question, check = study.pairs.get(), study.attention_checks.get()
    client.force_login(researcher)
    url = reverse("studies:languages", args=[study.slug]) + "?lang=de"
    refused = client.post(
        url,
        {
            "title": "T" * 201,
            f"q{question.pk}_options": "2018",
            f"c{check.pk}_prompt": "Bitte wählen",
            f"c{check.pk}_options": "a",
        },
    )
    assert refused.status_code == 200
    page = refused.content.decode()
    assert "Not saved: 3 things to fix." in page
    assert "Give a text of at most 200 characters." in page
    assert page.count("options, in the order of the original language.") >= 2
    study.refresh_from_db()
    assert "de" not in (study.translations or {})
