"""Once live participants have answered a pair, its answer key, type and options stay as they
were scored against: an import or an edit that would change them is refused with the studies
named. Pilot answers do not hold a pair back (the pilot is where a wrong key gets fixed), and
"a new chart set" is always a new set."""

import pytest
from django.core.exceptions import ValidationError

from studies.models import ChartSet, Question, Study
from studies.services.library import ImportRejected, chartset_import, question_update
from studies.services.sessions import Identity, response_record, session_start
from studies.tests.factories import make_study
from studies.tests.test_library_helpers import small_files, write_folder, zip_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_set(tmp_path, researcher):
    return chartset_import(
        owner=researcher, source=write_folder(tmp_path / "s", small_files()), slug="small"
    ).chart_set


def _answer_all(study, pid):
    session = session_start(
        study=study, identity=Identity("prolific", pid, {"PROLIFIC_PID": pid})
    ).session
    for trial in session.trials.select_related("question").order_by("position"):
        kind = trial.question.answer_type
        answer = {"ranking": list(trial.question.options), "multiple_choice": 0}.get(kind, "1.3")
        response_record(token=session.token, position=trial.position, answer=answer)


def _key_changed(tmp_path, name):
    files = small_files()
    files["FACT_answer_keys.csv"] = files["FACT_answer_keys.csv"].replace(
        b"G3_Q1_1,multiple choice,2\nG3_Q1_2,multiple choice,2",
        b"G3_Q1_1,multiple choice,1\nG3_Q1_2,multiple choice,1",
    )
    return write_folder(tmp_path / name, files)


def test_an_import_may_not_change_a_key_live_participants_were_scored_against(
    tmp_path, researcher, small_set
):
    study = make_study(researcher, chart_set=small_set, checks=None, title="Live study")
    _answer_all(study, "P1")
    _answer_all(study, "P2")
    with pytest.raises(ImportRejected) as refused:
        chartset_import(owner=researcher, source=_key_changed(tmp_path, "k"), slug="small")
    (problem,) = refused.value.problems
    assert "G3_Q1: its answer key, type, options or tolerance would change" in problem.message
    assert problem.message.count("“Live study”") == 1  # once per study, not per answer
    assert Question.objects.get(chart_set=small_set, code="G3_Q1").answer_key == "2"
    with pytest.raises(ValidationError, match="live participants of “Live study”"):
        question_update(question=Question.objects.get(chart_set=small_set, code="G3_Q1"),
                        user=researcher, answer_key="1")  # fmt: skip


def test_pilot_answers_do_not_hold_a_key_back(tmp_path, researcher, small_set):
    study = make_study(researcher, chart_set=small_set, checks=None, status=Study.Status.PILOT)
    _answer_all(study, "P1")
    chartset_import(owner=researcher, source=_key_changed(tmp_path, "k"), slug="small")
    assert Question.objects.get(chart_set=small_set, code="G3_Q1").answer_key == "1"


def test_a_new_chart_set_is_never_an_existing_one(signed_in, small_set):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("small.zip", zip_bytes(small_files()))
    response = signed_in.post(
        "/studies/library/import/", {"file": upload, "target": "__new__", "title": "Small"}
    )
    assert response.status_code == 400
    assert "A chart set with the slug “small” exists already" in response.content.decode()
    assert ChartSet.objects.filter(slug__startswith="small").count() == 1


def test_an_image_an_attention_check_shows_is_never_discarded_with_a_chart(researcher):
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from studies.models import AttentionCheck
    from studies.services.library.pairs import image_files_discard

    name = default_storage.save("charts/shared-bytes.png", ContentFile(b"png bytes"))
    study = make_study(researcher, pairs=1, checks=None)
    AttentionCheck.objects.create(study=study, kind="sanity", prompt="Which bar?", position=0,
                                  image=name, width=10, height=10, answer_type="free_text", answer_key="2")  # fmt: skip
    image_files_discard([name])  # a chart with the same bytes was deleted or replaced
    assert default_storage.exists(name)
    AttentionCheck.objects.filter(image=name).delete()
    image_files_discard([name])
    assert not default_storage.exists(name)
