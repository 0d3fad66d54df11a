import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.captions import (
    CATEGORIES,
    DEFAULT_SPLIT_MAP,
    FACTUAL_CATEGORIES,
    MODEL_NAMES,
    dedupe_records,
    error_rate_tables,
    error_type_figure_svg,
    error_type_rates,
    factuality_table,
    majority_vote,
    sentence_frame,
)

# CI always provides the shared data, so a missing file must fail, never skip.
CHOCOLATE = (
    Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "chocolate" / "chocolate.json"
)
CHOCOLATE_SHA256 = "d769460b93f774cad6624d223365f80dffda68c8e988a86a772cc366a66b9858"

TABLE_COLUMNS = [
    "captions",
    "factual_captions",
    "nonfactual_captions",
    "factual_sentences",
    "nonfactual_sentences",
]


@pytest.fixture(scope="module")
def records():
    assert CHOCOLATE.is_file(), f"CHOCOLATE label file not found at {CHOCOLATE}"
    return json.loads(CHOCOLATE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def sentences(records):
    return sentence_frame(records)


def record(_id, sentences, labels, model="gpt4v", dataset="pew"):
    return {
        "_id": _id,
        "sentences": sentences,
        "labels": labels,
        "model": model,
        "dataset": dataset,
    }


# --- the released file -----------------------------------------------------------------------------


def test_the_label_file_is_the_documented_release():
    assert hashlib.sha256(CHOCOLATE.read_bytes()).hexdigest() == CHOCOLATE_SHA256


def test_factuality_table_reproduces_table_10(sentences):
    table = factuality_table(sentences)
    assert list(table.index) == ["LVLM", "LLM", "FT", "all"]
    assert table.loc[:, TABLE_COLUMNS].to_dict("index") == {
        "LVLM": dict(zip(TABLE_COLUMNS, [395, 74, 321, 1683, 1270], strict=True)),
        "LLM": dict(zip(TABLE_COLUMNS, [196, 27, 169, 518, 469], strict=True)),
        "FT": dict(zip(TABLE_COLUMNS, [596, 112, 484, 360, 1023], strict=True)),
        "all": dict(zip(TABLE_COLUMNS, [1187, 213, 974, 2561, 2762], strict=True)),
    }


def test_factuality_table_reproduces_table_2_totals(sentences):
    # Table 2: 5,323 sentences and 1,187 captions; 82.06% of captions are non-factual.
    row = factuality_table(sentences).loc["all"]
    assert row["sentences"] == 5323
    assert round(100 * row["nonfactual_captions"] / row["captions"], 2) == 82.06


def test_the_lvlm_split_is_non_factual_as_often_as_the_paper_says(sentences):
    # Section 2.2: GPT-4V and Bard captions are factually incorrect 81.27% of the time.
    row = factuality_table(sentences).loc["LVLM"]
    assert round(100 * row["nonfactual_captions"] / row["captions"], 2) == 81.27


def test_dedupe_records_drops_the_four_repeated_ids(records):
    deduped = dedupe_records(records)
    assert len(deduped.records) == 1183
    assert sorted(deduped.duplicate_ids) == [
        "bard-pew_multi_col-1890",
        "chartt5-pew_multi_col-5756",
        "chartt5-vistext_2734",
        "deplot-pew_multi_col-2016",
    ]


def test_deduplicated_records_give_the_documented_counts(records):
    table = factuality_table(sentence_frame(dedupe_records(records).records))
    assert table.loc[:, TABLE_COLUMNS[1:]].to_dict("index") == {
        "LVLM": dict(zip(TABLE_COLUMNS[1:], [74, 320, 1680, 1263], strict=True)),
        "LLM": dict(zip(TABLE_COLUMNS[1:], [27, 168, 516, 465], strict=True)),
        "FT": dict(zip(TABLE_COLUMNS[1:], [112, 482, 357, 1019], strict=True)),
        "all": dict(zip(TABLE_COLUMNS[1:], [213, 970, 2553, 2747], strict=True)),
    }
    assert table.loc["all", "sentences"] == 5300


# Tables 5 and 6: (model, dataset) -> (factual, non-factual, factual rate in %).
TABLE_5 = {
    ("chartt5", "vistext"): (70, 197, 26.22),
    ("chartt5", "pew"): (10, 123, 7.52),
    ("matcha", "vistext"): (67, 107, 38.51),
    ("matcha", "pew"): (63, 301, 17.31),
    ("unichart", "vistext"): (88, 67, 56.77),
    ("unichart", "pew"): (62, 228, 21.38),
    ("deplot", "vistext"): (217, 223, 49.32),
    ("deplot", "pew"): (301, 246, 55.03),
    ("bard", "vistext"): (252, 578, 30.36),
    ("bard", "pew"): (438, 336, 56.59),
    ("gpt4v", "vistext"): (361, 213, 62.89),
    ("gpt4v", "pew"): (632, 143, 81.55),
}
TABLE_6 = {
    ("chartt5", "vistext"): (17, 83, 17.00),
    ("chartt5", "pew"): (7, 93, 7.00),
    ("matcha", "vistext"): (33, 67, 33.00),
    ("matcha", "pew"): (2, 98, 2.00),
    ("unichart", "vistext"): (50, 46, 52.08),
    ("unichart", "pew"): (3, 97, 3.00),
    ("deplot", "vistext"): (10, 86, 10.42),
    ("deplot", "pew"): (17, 83, 17.00),
    ("bard", "vistext"): (1, 95, 1.04),
    ("bard", "pew"): (6, 93, 6.06),
    ("gpt4v", "vistext"): (17, 83, 17.00),
    ("gpt4v", "pew"): (50, 50, 50.00),
}


@pytest.mark.parametrize(("level", "published"), [("sentences", TABLE_5), ("captions", TABLE_6)])
def test_error_rate_tables_reproduce_tables_5_and_6(sentences, level, published):
    table = getattr(error_rate_tables(sentences), level)
    assert list(table.index) == list(published)
    for key, (factual, nonfactual, rate) in published.items():
        row = table.loc[key]
        assert (row["factual"], row["nonfactual"]) == (factual, nonfactual), key
        assert round(100 * row["factual_rate"], 2) == rate, key
        assert row["error_rate"] == pytest.approx(1 - row["factual_rate"])


def test_error_type_rates_divide_each_error_count_by_the_sentences(sentences):
    rates = error_type_rates(sentences)
    assert list(rates.index) == ["chartt5", "matcha", "unichart", "deplot", "bard", "gpt4v"]
    assert list(rates.columns) == list(CATEGORIES)
    gpt4v = sentences[sentences["model"] == "gpt4v"]
    expected = gpt4v["value_error"].sum() / len(gpt4v)
    assert rates.loc["gpt4v", "value_error"] == pytest.approx(expected)
    # Appendix A: almost every model makes more nonsense errors on Pew than on VisText.
    by_source = error_type_rates(sentences, by=["dataset", "model"])["nonsense_error"]
    more_on_pew = [by_source[("pew", m)] > by_source[("vistext", m)] for m in rates.index]
    assert sum(more_on_pew) >= 5


def test_error_type_figure_renders_an_svg_with_the_model_names(sentences):
    svg = error_type_figure_svg(error_type_rates(sentences), title="Errors per sentence")
    assert svg.startswith("<svg")
    assert svg.rstrip().endswith("</svg>")
    for name in MODEL_NAMES.values():
        assert name in svg.replace("&amp;", "&")
    assert "Out-of-context error" in svg


def test_error_type_figure_is_byte_stable(sentences):
    rates = error_type_rates(sentences, by=["dataset", "model"])
    assert error_type_figure_svg(rates) == error_type_figure_svg(rates)


def test_error_type_figure_rejects_empty_rates():
    with pytest.raises(ValueError, match="non-empty"):
        error_type_figure_svg(pd.DataFrame())


# --- sentence_frame --------------------------------------------------------------------------------


def test_a_sentence_with_only_a_grammatical_error_is_factual():
    frame = sentence_frame(
        [record("gpt4v-1", ["It rise in 2010.", "It fell."], [["grammatical_error"], []])]
    )
    assert frame["grammatical_error"].tolist() == [True, False]
    assert frame["factual"].tolist() == [True, True]
    assert factuality_table(frame).loc["all", "factual_captions"] == 1


def test_one_factual_error_makes_the_caption_non_factual():
    frame = sentence_frame(
        [
            record(
                "bard-2", ["A.", "B.", "C."], [[], ["grammatical_error", "trend_error"], []], "bard"
            )
        ]
    )
    assert frame["factual"].tolist() == [True, False, True]
    table = factuality_table(frame)
    assert table.loc["LVLM", ["factual_captions", "nonfactual_captions"]].tolist() == [0, 1]


def test_factual_categories_can_be_narrowed():
    frame = sentence_frame(
        [record("deplot-3", ["A."], [["nonsense_error"]], "deplot")],
        factual_categories=["value_error"],
    )
    assert frame["factual"].tolist() == [True]
    assert frame["split"].tolist() == ["LLM"]


def test_sentence_frame_columns_and_split_map():
    frame = sentence_frame(
        [record("m-1", ["A.", "B."], [[], ["value_error"]], "mymodel", "vistext")],
        split_map={**DEFAULT_SPLIT_MAP, "mymodel": "NEW"},
    )
    assert list(frame.columns) == [
        "record", "item", "sentence", "text", "model", "dataset", "split", *CATEGORIES, "factual",
    ]  # fmt: skip
    assert frame[["item", "sentence", "split"]].values.tolist() == [
        ["m-1", 0, "NEW"],
        ["m-1", 1, "NEW"],
    ]
    assert list(factuality_table(frame).index) == ["NEW", "all"]


def test_repeated_records_count_as_separate_captions():
    same = record("gpt4v-9", ["A."], [[]])
    table = factuality_table(sentence_frame([same, same]))
    assert table.loc["all", "captions"] == 2


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"_id": "x", "sentences": ["A."], "labels": [[]], "model": "gpt4v"}, "lacks dataset"),
        (record("x", ["A.", "B."], [[]]), "2 sentences but 1 label"),
        (record("x", ["A."], [["spelling_error"]]), "unknown label"),
        (record("x", ["A."], [[]], model="llava"), "no split"),
    ],
)
def test_sentence_frame_rejects_malformed_records(bad, message):
    with pytest.raises(ValueError, match=message):
        sentence_frame([bad])


def test_sentence_frame_rejects_unknown_factual_categories():
    with pytest.raises(ValueError, match="unknown factual categories"):
        sentence_frame([], factual_categories=["typo_error"])


def test_factual_categories_exclude_only_grammatical_errors():
    assert set(CATEGORIES) - set(FACTUAL_CATEGORIES) == {"grammatical_error"}
    assert len(CATEGORIES) == 7


def test_factuality_table_rejects_frames_without_the_needed_columns():
    with pytest.raises(ValueError, match="split"):
        factuality_table(pd.DataFrame({"item": [1], "factual": [True]}))


# --- dedupe_records --------------------------------------------------------------------------------


def test_dedupe_records_keeps_the_first_copy_in_order():
    a, b = record("a", ["A."], [[]]), record("b", ["B."], [[]])
    deduped = dedupe_records([a, b, a, a])
    assert [r["_id"] for r in deduped.records] == ["a", "b"]
    assert deduped.duplicate_ids == ["a"]


def test_dedupe_records_refuses_conflicting_copies():
    with pytest.raises(ValueError, match="differ"):
        dedupe_records([record("a", ["A."], [[]]), record("a", ["A."], [["value_error"]])])


def test_dedupe_records_requires_an_id():
    with pytest.raises(ValueError, match="no _id"):
        dedupe_records([{"sentences": []}])


# --- majority_vote ---------------------------------------------------------------------------------


def decisions(votes):
    """votes: {(item, sentence, category): [bool per rater]} -> long decisions frame."""
    rows = [
        {"item": item, "sentence": sentence, "rater": f"r{index}", "category": category, "value": v}
        for (item, sentence, category), values in votes.items()
        for index, v in enumerate(values)
    ]
    return pd.DataFrame(rows)


def vote_table(result):
    return {
        (row.item, row.sentence, row.category): (bool(row.value), row.n_raters, row.n_positive)
        for row in result.itertuples()
    }


def test_majority_vote_with_three_raters_needs_two_positives():
    votes = {
        ("c1", 0, "value_error"): [True, True, False],
        ("c1", 0, "trend_error"): [True, False, False],
        ("c1", 1, "value_error"): [True, True, True],
        ("c1", 1, "trend_error"): [False, False, False],
    }
    for tie in ("negative", "positive"):
        assert vote_table(majority_vote(decisions(votes), tie=tie)) == {
            ("c1", 0, "trend_error"): (False, 3, 1),
            ("c1", 0, "value_error"): (True, 3, 2),
            ("c1", 1, "trend_error"): (False, 3, 0),
            ("c1", 1, "value_error"): (True, 3, 3),
        }


def test_majority_vote_with_two_raters_resolves_ties_by_the_tie_rule():
    votes = {
        ("c2", 0, "ooc_error"): [True, False],
        ("c2", 0, "label_error"): [True, True],
        ("c2", 0, "value_error"): [False, False],
    }
    negative = vote_table(majority_vote(decisions(votes)))
    positive = vote_table(majority_vote(decisions(votes), tie="positive"))
    assert negative[("c2", 0, "ooc_error")] == (False, 2, 1)
    assert positive[("c2", 0, "ooc_error")] == (True, 2, 1)
    for key in [("c2", 0, "label_error"), ("c2", 0, "value_error")]:
        assert negative[key] == positive[key]
    assert positive[("c2", 0, "label_error")] == (True, 2, 2)
    assert positive[("c2", 0, "value_error")] == (False, 2, 0)


def test_majority_vote_with_four_raters_split_two_two_is_a_tie():
    votes = {("c3", 0, "value_error"): [True, True, False, False]}
    assert not majority_vote(decisions(votes)).loc[0, "value"]
    assert majority_vote(decisions(votes), tie="positive").loc[0, "value"]


def test_majority_vote_returns_the_documented_columns():
    result = majority_vote(decisions({("c", 0, "value_error"): [True]}))
    assert list(result.columns) == [
        "item",
        "sentence",
        "category",
        "value",
        "n_raters",
        "n_positive",
    ]


def test_majority_vote_accepts_zero_and_one():
    frame = decisions({("c", 0, "value_error"): [1, 1, 0]})
    assert bool(majority_vote(frame).loc[0, "value"])


def test_majority_vote_rejects_an_unknown_tie_rule():
    with pytest.raises(ValueError, match="tie rule"):
        majority_vote(decisions({("c", 0, "value_error"): [True]}), tie="coin")


def test_majority_vote_rejects_a_rater_deciding_twice():
    frame = decisions({("c", 0, "value_error"): [True, False]})
    with pytest.raises(ValueError, match="more than once"):
        majority_vote(pd.concat([frame, frame.iloc[[0]]]))


@pytest.mark.parametrize("value", [None, "yes", 2])
def test_majority_vote_rejects_values_that_are_not_decisions(value):
    frame = decisions({("c", 0, "value_error"): [True, False]})
    frame["value"] = frame["value"].astype(object)
    frame.loc[1, "value"] = value
    with pytest.raises(ValueError, match="True or False"):
        majority_vote(frame)


def test_majority_vote_rejects_missing_columns():
    frame = decisions({("c", 0, "value_error"): [True]}).drop(columns="rater")
    with pytest.raises(ValueError, match="rater"):
        majority_vote(frame)


def test_majority_vote_rejects_decisions_without_a_rater():
    frame = decisions({("c", 0, "value_error"): [True, False]})
    frame.loc[0, "rater"] = None
    with pytest.raises(ValueError, match="needs an item"):
        majority_vote(frame)
