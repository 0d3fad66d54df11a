"""Aggregating annotators' labels: majority vote, the tie rule, factual flags, who counts."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.captions import CATEGORIES, error_type_rates, sentence_frame
from annotation.models import Category, GoldItem, Qualification, QualificationRound
from annotation.selectors.agreement import report_fingerprint
from annotation.services.reports import aggregated_labels, project_tie_rule_set, report_compute
from annotation.tests.factories import submit
from core.models import AuditEntry

pytestmark = pytest.mark.django_db


def _labels(project, **kwargs):
    by_pk = aggregated_labels(project, **kwargs)
    return {project.items.get(pk=pk).external_id: labels for pk, labels in by_pk.items()}


def test_a_strict_majority_marks_an_error_and_a_minority_does_not(project, make_items, members):
    a, b, c = members(3)
    item = make_items(project, 1)[0]
    submit(project, item, a, [["value_error", "trend_error"], []])
    submit(project, item, b, [["value_error"], ["label_error"]])
    submit(project, item, c, [[], []])
    assert _labels(project) == {item.external_id: [["value_error"], []]}


@pytest.mark.parametrize(
    ("rule", "expected"), [("negative", [[], []]), ("positive", [["value_error"], []])]
)
def test_a_one_one_tie_follows_the_projects_tie_rule(project, make_items, members, rule, expected):
    a, b = members(2)
    item = make_items(project, 1)[0]
    submit(project, item, a, [["value_error"], []])
    submit(project, item, b, [[], []])
    project_tie_rule_set(project=project, tie_rule=rule)
    assert _labels(project)[item.external_id] == expected


@pytest.mark.parametrize(("rule", "marked"), [("negative", False), ("positive", True)])
def test_a_two_two_tie_follows_the_tie_rule_too(project, make_items, members, rule, marked):
    annotators = members(4)
    item = make_items(project, 1, sentences=("Only.",))[0]
    for n, annotator in enumerate(annotators):
        submit(project, item, annotator, [["ooc_error"] if n < 2 else []])
    project.tie_rule = rule
    project.save(update_fields=["tie_rule"])
    report = report_compute(project=project).data
    factuality = {row["split"]: row for row in report["tables"]["factuality"]}
    assert factuality["all"]["nonfactual_sentences"] == int(marked)
    assert report["tie_rule"] == rule


def test_changing_the_tie_rule_is_audited_and_makes_the_report_stale(
    project, researcher, make_items, members
):
    a, b = members(2)
    item = make_items(project, 1)[0]
    submit(project, item, a, [["value_error"], []])
    submit(project, item, b, [[], []])
    before = report_fingerprint(project, labels="annotators")
    project_tie_rule_set(project=project, tie_rule="positive", actor=researcher)
    assert report_fingerprint(project, labels="annotators") != before
    entry = AuditEntry.objects.get(action="annotation.tie_rule")
    assert entry.details == {"from": "negative", "to": "positive"}
    assert entry.actor == researcher


def test_an_unknown_tie_rule_is_refused(project):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as caught:
        project_tie_rule_set(project=project, tie_rule="coin-flip")
    assert "tie_rule" in caught.value.message_dict
    project.refresh_from_db()
    assert project.tie_rule == "negative"


def test_factual_flags_follow_the_factual_categories_per_sentence_and_caption(
    project, make_items, members
):
    annotators = members(3)
    grammatical, mixed, clean = make_items(project, 3, sentences=("First.", "Second."))
    for annotator in annotators:
        # Grammatical slips only: every sentence stays factual.
        submit(project, grammatical, annotator, [["grammatical_error"], ["grammatical_error"]])
        # One factual error in one sentence: that sentence and the caption are non-factual.
        submit(project, mixed, annotator, [[], ["nonsense_error", "grammatical_error"]])
        submit(project, clean, annotator, [[], []])
    report = report_compute(project=project).data
    totals = {row["split"]: row for row in report["tables"]["factuality"]}["all"]
    assert totals["sentences"] == 6 and totals["nonfactual_sentences"] == 1
    assert totals["captions"] == 3 and totals["nonfactual_captions"] == 1
    assert totals["factual_captions"] == 2
    rates = report["tables"]["error_types"][0]
    assert rates["grammatical_error"] == pytest.approx(3 / 6)
    assert rates["nonsense_error"] == pytest.approx(1 / 6)


def test_a_category_the_researcher_calls_non_factual_no_longer_makes_sentences_non_factual(
    project, make_items, members
):
    annotators = members(3)
    item = make_items(project, 1, sentences=("Only.",))[0]
    for annotator in annotators:
        submit(project, item, annotator, [["ooc_error"]])
    Category.objects.filter(project=project, key="ooc_error").update(is_factual=False)
    totals = report_compute(project=project).data["tables"]["factuality"][-1]
    assert totals["nonfactual_sentences"] == 0 and totals["factual_captions"] == 1


def test_a_project_defined_category_is_aggregated_and_tabled(project, make_items, members):
    from annotation.services import category_create

    category_create(
        project=project, key="colour_error", name="Colour", definition="Wrong colour.", shortcut="c"
    )
    annotators = members(3)
    item = make_items(project, 1, sentences=("Blue bars.",))[0]
    for annotator in annotators:
        submit(project, item, annotator, [["colour_error"]])
    report = report_compute(project=project).data
    assert _labels(project) == {item.external_id: [["colour_error"]]}
    assert report["tables"]["error_types"][0]["colour_error"] == 1.0
    assert report["tables"]["factuality"][-1]["nonfactual_sentences"] == 1
    decisions = [row["decision"] for row in report["agreement"]["decisions"]]
    assert decisions[-1] == "colour_error"


def test_sentence_frame_and_error_type_rates_take_other_categories():
    records = [
        {
            "_id": "a",
            "sentences": ["x", "y"],
            "labels": [["colour_error"], []],
            "model": "m",
            "dataset": "d",
        }
    ]
    frame = sentence_frame(
        records, {"m": "S"}, factual_categories=["colour_error"], categories=["colour_error"]
    )
    assert list(frame["factual"]) == [False, True]
    rates = error_type_rates(frame, categories=["colour_error"])
    assert rates.loc["m", "colour_error"] == 0.5
    # The default is still the seven categories of the seed.
    default = sentence_frame([{**records[0], "labels": [["value_error"], []]}], {"m": "S"})
    assert [c for c in default.columns if c in CATEGORIES] == list(CATEGORIES)
    assert isinstance(default, pd.DataFrame)


def test_blocked_annotators_labels_are_left_out_unless_the_researcher_includes_them(
    project, make_items, members
):
    a, b, blocked = members(3)
    item = make_items(project, 1, sentences=("Only.",))[0]
    submit(project, item, a, [[]])
    submit(project, item, b, [["value_error"]])
    submit(project, item, blocked, [["value_error"]])
    Qualification.objects.create(
        project=project, annotator=blocked, work_state=Qualification.Work.BLOCKED
    )
    counted = report_compute(project=project).data
    assert counted["summary"]["label_sets"] == 2
    assert _labels(project)[item.external_id] == [[]]  # a 1-1 tie, no error by default
    everyone = report_compute(project=project, include_excluded=True).data
    assert everyone["summary"]["label_sets"] == 3
    assert _labels(project, include_excluded=True)[item.external_id] == [["value_error"]]


def test_only_qualified_annotators_count_once_the_project_has_rounds(project, make_items, members):
    qualified, newcomer = members(2)
    item = make_items(project, 1, sentences=("Only.",))[0]
    submit(project, item, qualified, [["value_error"]])
    submit(project, item, newcomer, [[]])
    QualificationRound.objects.create(project=project, position=1, title="Round 1")
    Qualification.objects.create(
        project=project, annotator=qualified, state=Qualification.State.QUALIFIED
    )
    assert report_compute(project=project).data["summary"]["label_sets"] == 1


def test_control_items_never_count_as_data(project, make_items, members):
    annotators = members(3)
    data_item, control = make_items(project, 2, sentences=("Only.",))
    GoldItem.objects.create(project=project, item=control, labels=[["value_error"]])
    for annotator in annotators:
        submit(project, data_item, annotator, [[]])
        submit(project, control, annotator, [["value_error"]])
    for include in (False, True):
        report = report_compute(project=project, include_excluded=include).data
        assert report["summary"]["label_sets"] == 3
        assert report["summary"]["items_labelled"] == 1
    assert control.pk not in aggregated_labels(project, include_excluded=True)
