"""The import_model_answers and export_prompts commands."""

import json
import zipfile

import pytest
from django.core.management import CommandError, call_command

from studies.models import ModelAnswer
from studies.tests.factories import make_study
from studies.tests.model_eval_helpers import full_rows, jsonl, row

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(researcher):
    return make_study(researcher, pairs=3, checks=None)


def test_it_imports_a_file_and_prints_coverage(study, tmp_path, capsys):
    path = tmp_path / "answers.jsonl"
    path.write_bytes(jsonl(full_rows("m1")[:3]))
    call_command("import_model_answers", study.slug, str(path))
    assert "m1: 3 rows, answered 3/6 charts" in capsys.readouterr().out
    assert ModelAnswer.objects.filter(study=study).count() == 3


def test_it_lists_every_problem_and_imports_nothing(study, tmp_path, capsys):
    path = tmp_path / "answers.jsonl"
    path.write_bytes(jsonl(full_rows("m1") + [row("m1", "X_1"), row("m1", "G1_Q1_1")]))
    with pytest.raises(CommandError, match="Nothing imported: 2 problem"):
        call_command("import_model_answers", study.slug, str(path))
    err = capsys.readouterr().err
    assert "row 7" in err and "row 8" in err
    assert not ModelAnswer.objects.exists()


def test_it_rejects_an_unknown_study_or_file(study, tmp_path):
    with pytest.raises(CommandError, match="No study"):
        call_command("import_model_answers", "nope", str(tmp_path / "a.csv"))
    with pytest.raises(CommandError, match="No such file"):
        call_command("import_model_answers", study.slug, str(tmp_path / "a.csv"))


def test_export_prompts_writes_a_zip_with_the_mind_template(study, tmp_path):
    out = tmp_path / "p.zip"
    call_command("export_prompts", study.slug, "--output", str(out))
    archive = zipfile.ZipFile(out)
    lines = [json.loads(x) for x in archive.read("prompts.jsonl").decode().splitlines()]
    assert len(lines) == 6
    question = study.chart_set.questions.get(code="G1_Q1")
    assert lines[0]["mind_prompt"] == question.mind_question
    assert all(line["image"] in archive.namelist() for line in lines)
