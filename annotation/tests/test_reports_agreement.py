"""The agreement report, end to end from the database, against independently computed values.

The reference values here do not go through ``analysis.agreement``: Fleiss' and
Cohen's kappa come from statsmodels, alpha from the ``krippendorff`` package fed
the real annotators x sentences table, and p, AC1 and agreement with the
majority are counted by hand from the label lists.
"""

from __future__ import annotations

import math
import random

import krippendorff
import numpy as np
import pytest
from statsmodels.stats import inter_rater

from analysis.decisions import slot_matrix
from annotation.services.reports import report_compute
from annotation.tests.factories import submit

pytestmark = pytest.mark.django_db

KEYS = [
    "value_error",
    "label_error",
    "trend_error",
    "magnitude_error",
    "ooc_error",
    "grammatical_error",
    "nonsense_error",
]
FACTUAL_KEYS = [k for k in KEYS if k != "grammatical_error"]


@pytest.fixture
def labelled(project, make_items, members):
    """12 items labelled by 3 of 4 annotators, 2 more items by only 2 of them (k = 3)."""
    rng = random.Random(7)
    annotators = members(4)
    complete = make_items(project, 12, sentences=("One.", "Two.", "Three."))
    partial = make_items(project, 2, sentences=("Four.", "Five."))
    truth_rate = {"value_error": 0.35, "label_error": 0.25, "grammatical_error": 0.2}
    given = {}  # (item pk, annotator pk) -> labels
    for items, raters in ((complete, 3), (partial, 2)):
        for item in items:
            truth = [
                {k for k, rate in truth_rate.items() if rng.random() < rate} for _ in item.sentences
            ]
            for annotator in rng.sample(annotators, raters):
                labels = []
                for sentence in truth:
                    marked = set(sentence)
                    for key in KEYS:
                        if rng.random() < 0.12:
                            marked ^= {key}
                    labels.append([k for k in KEYS if k in marked])
                submit(project, item, annotator, labels)
                given[(item.pk, annotator.pk)] = labels
    return {
        "annotators": annotators,
        "complete": complete,
        "partial": partial,
        "given": given,
        "report": report_compute(project=project).data,
    }


def _units(given, decide):
    """{(item, sentence): {annotator: bool}} for one decision."""
    units = {}
    for (item, annotator), labels in given.items():
        for n, sentence in enumerate(labels):
            units.setdefault((item, n), {})[annotator] = decide(sentence)
    return units


def _decisions():
    yield "factual", lambda s: any(k in s for k in FACTUAL_KEYS)
    for key in KEYS:
        yield key, lambda s, key=key: key in s


def _gwet_ac1(units) -> float:
    """Gwet (2008) for two categories, counted straight from the ratings."""
    n_items = len(units)
    pi_pos = sum(sum(v.values()) / len(v) for v in units.values()) / n_items
    pi = [1 - pi_pos, pi_pos]
    paired = [v for v in units.values() if len(v) >= 2]
    p_a = 0.0
    for ratings in paired:
        r = len(ratings)
        pos = sum(ratings.values())
        p_a += (pos * (pos - 1) + (r - pos) * (r - pos - 1)) / (r * (r - 1))
    p_a /= len(paired)
    p_e = sum(p * (1 - p) for p in pi) / (2 - 1)
    return (p_a - p_e) / (1 - p_e)


def test_every_coefficient_matches_an_independent_computation(labelled):
    report = labelled["report"]
    annotators = [a.pk for a in labelled["annotators"]]
    rows = {row["decision"]: row for row in report["agreement"]["decisions"]}
    assert list(rows) == ["factual", *KEYS]
    checked = 0
    for name, decide in _decisions():
        units = _units(labelled["given"], decide)
        row = rows[name]
        full = [v for v in units.values() if len(v) == 3]
        table = np.array([[3 - sum(v.values()), sum(v.values())] for v in full])
        assert row["sentences"] == len(full) == 36
        assert row["sentences_all"] == len(units) == 40
        assert row["raters"] == 3 and row["annotators"] == 4
        if table[:, 1].sum() in (0, table.sum()):
            assert row["fleiss_kappa"] is None and row["krippendorff_alpha"] is None
            continue
        assert row["fleiss_kappa"] == pytest.approx(inter_rater.fleiss_kappa(table), abs=1e-12)
        p = np.mean([max(sum(v.values()), 3 - sum(v.values())) / 3 for v in full])
        assert row["majority_agreement"] == pytest.approx(p, abs=1e-12)
        coders = np.array(
            [
                [float(units[key][a]) if a in units[key] else np.nan for key in sorted(units)]
                for a in annotators
            ]
        )
        alpha = krippendorff.alpha(reliability_data=coders, level_of_measurement="nominal")
        assert row["krippendorff_alpha"] == pytest.approx(alpha, abs=1e-12)
        assert row["gwet_ac1"] == pytest.approx(_gwet_ac1(units), abs=1e-12)
        checked += 1
    assert checked >= 5  # the factual decision and the categories someone marked


def test_pairwise_kappa_matches_statsmodels_on_the_factual_decision(labelled, project):
    units = _units(labelled["given"], lambda s: any(k in s for k in FACTUAL_KEYS))
    pseudonyms = {a.pk: f"A0{n}" for n, a in enumerate(labelled["annotators"], start=1)}
    pairs = {
        (p["annotator_a"], p["annotator_b"]): p for p in labelled["report"]["agreement"]["pairwise"]
    }
    assert len(pairs) == 6
    for a in labelled["annotators"]:
        for b in labelled["annotators"]:
            if pseudonyms[a.pk] >= pseudonyms[b.pk]:
                continue
            shared = [v for v in units.values() if a.pk in v and b.pk in v]
            table = np.zeros((2, 2))
            for v in shared:
                table[int(v[a.pk]), int(v[b.pk])] += 1
            row = pairs[(pseudonyms[a.pk], pseudonyms[b.pk])]
            assert row["sentences"] == len(shared)
            expected = inter_rater.cohens_kappa(table).kappa
            if math.isnan(expected):
                assert row["cohen_kappa"] is None
            else:
                assert row["cohen_kappa"] == pytest.approx(expected, abs=1e-12)


def test_each_annotators_agreement_with_the_majority_is_counted_by_hand(labelled):
    units = _units(labelled["given"], lambda s: any(k in s for k in FACTUAL_KEYS))
    rows = {r["annotator"]: r for r in labelled["report"]["agreement"]["annotators"]}
    for n, annotator in enumerate(labelled["annotators"], start=1):
        agree = counted = 0
        for ratings in units.values():
            if annotator.pk not in ratings or len(ratings) < 2:
                continue
            yes = sum(ratings.values())
            no = len(ratings) - yes
            if yes == no:
                continue  # a tie has no majority
            counted += 1
            agree += ratings[annotator.pk] == (yes > no)
        row = rows[f"A0{n}"]
        assert (row["factual_agree"], row["factual_counted"]) == (agree, counted)
        assert row["factual_share"] == pytest.approx(agree / counted)
        assert row["items"] == sum(1 for (_, a) in labelled["given"] if a == annotator.pk)


def test_items_with_fewer_raters_than_k_are_left_out_of_kappa_and_named(labelled):
    left_out = labelled["report"]["agreement"]["left_out"]
    assert len(left_out) == 1
    group = left_out[0]
    assert group["raters"] == 2 and group["items"] == 2 and group["sentences"] == 4
    assert sorted(group["ids"]) == sorted(i.external_id for i in labelled["partial"])
    assert "2 of k = 3" in group["reason"]
    assert labelled["report"]["agreement"]["items_complete"] == 12


def test_items_with_more_raters_than_k_are_left_out_with_their_reason(project, make_items, members):
    annotators = members(3)
    items = make_items(project, 3)
    for item in items:
        for annotator in annotators:
            submit(project, item, annotator, [["value_error"], []])
    project.annotators_per_item = 2
    project.save(update_fields=["annotators_per_item"])
    report = report_compute(project=project).data["agreement"]
    assert report["left_out"][0]["raters"] == 3
    assert "more than k = 2" in report["left_out"][0]["reason"]
    factual = report["decisions"][0]
    assert factual["sentences"] == 0 and factual["fleiss_kappa"] is None
    assert factual["sentences_all"] == 6  # alpha and AC1 still see them


def test_alpha_from_rating_slots_equals_alpha_from_the_annotators_table():
    rng = np.random.default_rng(3)
    coders = rng.random((9, 400)) < 0.3
    present = rng.random((9, 400)) < 0.35
    data = np.where(present, coders.astype(float), np.nan)
    n_raters = present.sum(axis=0)
    n_positive = (coders & present).sum(axis=0)
    keep = n_raters >= 2
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    slots = slot_matrix(n_raters[keep], n_positive[keep])
    assert slots.shape[0] == n_raters.max()
    ours = krippendorff.alpha(reliability_data=slots, level_of_measurement="nominal")
    assert ours == pytest.approx(expected, abs=1e-12)


def test_a_project_without_labels_reports_no_agreement(project, make_items):
    make_items(project, 2)
    report = report_compute(project=project).data
    assert report["agreement"] is None
    assert report["tables"] is None
    assert "No item has labels from annotators yet." in report["notes"]
