"""Caption-factuality statistics in the style of CHOCOLATE (Huang et al., "Do LVLMs
Understand Charts? Analyzing and Correcting Factual Errors in Chart Captioning").

Records follow the released ``chocolate.json``: ``_id``, ``sentences`` (the
caption, already split), ``labels`` (one list of error categories per
sentence), ``model`` and ``dataset``. ``sentence_frame`` flattens them to one
row per sentence; the table functions reproduce the paper's Table 2 / 10
(factuality per split), Tables 5 and 6 (error rates per model and chart
source) and the data behind Figure 1 (rate of each error type per model).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from analysis.splits import DEFAULT_SPLIT_MAP, SPLITS
from analysis.svg import figure_to_svg

if TYPE_CHECKING:
    import pandas as pd

# Section 2.1 error typology, under the label names of the released data.
CATEGORIES = (
    "value_error",
    "label_error",
    "trend_error",
    "magnitude_error",
    "ooc_error",
    "grammatical_error",
    "nonsense_error",
)
CATEGORY_NAMES = MappingProxyType(
    {
        "value_error": "Value error",
        "label_error": "Label error",
        "trend_error": "Trend error",
        "magnitude_error": "Magnitude error",
        "ooc_error": "Out-of-context error",
        "grammatical_error": "Grammatical error",
        "nonsense_error": "Nonsense error",
    }
)
# A grammatical slip does not misstate the chart, so it does not make a sentence non-factual.
FACTUAL_CATEGORIES = tuple(c for c in CATEGORIES if c != "grammatical_error")

# Row order and display names of the paper's Tables 5 and 6.
MODELS = ("chartt5", "matcha", "unichart", "deplot", "bard", "gpt4v")
MODEL_NAMES = MappingProxyType(
    {
        "chartt5": "ChartT5",
        "matcha": "MatCha",
        "unichart": "UniChart",
        "deplot": "DePlot + GPT-4",
        "bard": "Bard",
        "gpt4v": "GPT-4V",
    }
)
DATASETS = ("vistext", "pew")
DATASET_NAMES = MappingProxyType({"vistext": "VisText", "pew": "Pew"})

TIE_RULES = ("negative", "positive")
RECORD_KEYS = ("_id", "sentences", "labels", "model", "dataset")
SENTENCE_COLUMNS = (
    "record",
    "item",
    "sentence",
    "text",
    "model",
    "dataset",
    "split",
    *CATEGORIES,
    "factual",
)

__all__ = [
    "CATEGORIES",
    "CATEGORY_NAMES",
    "DATASETS",
    "DATASET_NAMES",
    "DEFAULT_SPLIT_MAP",
    "FACTUAL_CATEGORIES",
    "MODELS",
    "MODEL_NAMES",
    "SPLITS",
    "DedupedRecords",
    "ErrorRateTables",
    "dedupe_records",
    "error_rate_tables",
    "error_type_figure_svg",
    "error_type_rates",
    "factuality_table",
    "majority_vote",
    "sentence_frame",
    "sentence_table",
]


class DedupedRecords(NamedTuple):
    records: list[dict]
    duplicate_ids: list[str]


class ErrorRateTables(NamedTuple):
    sentences: pd.DataFrame
    captions: pd.DataFrame


def _require_columns(frame: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"{what} must be a pandas DataFrame")
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise ValueError(f"{what} lack the column(s) {', '.join(absent)}")


def _ordered(values: Iterable, preferred: Sequence) -> list:
    """``preferred`` values first in their order, then any others sorted."""
    import pandas as pd

    if isinstance(values, pd.Series):
        # Series.unique keeps the order of appearance, in C: iterating 100,000 Arrow-backed
        # strings one by one in Python took a second per table.
        values = values.unique()
    present = list(dict.fromkeys(values))
    known = [v for v in preferred if v in present]
    others = sorted((v for v in present if v not in preferred), key=str)
    return known + others


# --- aggregation of raters -------------------------------------------------------------------------


def majority_vote(decisions: pd.DataFrame, tie: str = "negative") -> pd.DataFrame:
    """Aggregate raters' yes/no error decisions into one label per sentence and category.

    ``decisions`` is long: one row per (item, sentence, rater, category) with a
    boolean ``value`` (True = the rater marked this error). Every rater who
    judged a sentence needs a row for every category, False included, because
    n_raters is counted from the rows. For each (item, sentence, category):

        value = n_positive > n_raters / 2          (tie="negative", the default)
        value = n_positive >= n_raters / 2         (tie="positive")

    The default resolves a tie as "no error": an error label claims the caption
    misstates the chart, so a strict majority of raters has to have seen it.
    A 1-1 or 2-2 split is weak evidence, and calling it an error would make the
    dataset look less factual than its raters judged it; ``tie="positive"``
    suits a recall-oriented review queue instead. CHOCOLATE (section 2.3)
    aggregates by majority vote without stating a tie rule.

    Returns a DataFrame with columns item, sentence, category, value,
    n_raters, n_positive, sorted by item, sentence and category. Raises
    ValueError for an unknown tie rule, missing columns, missing keys, values
    other than True/False, or a rater deciding the same sentence and category
    twice.
    """
    import pandas as pd

    if tie not in TIE_RULES:
        raise ValueError(f"unknown tie rule {tie!r}; use 'negative' or 'positive'")
    keys = ["item", "sentence", "category"]
    _require_columns(decisions, [*keys, "rater", "value"], "decisions")
    if decisions[[*keys, "rater"]].isna().any().any():
        raise ValueError("every decision needs an item, sentence, category and rater")
    values = decisions["value"]
    if values.isna().any() or not values.isin([True, False]).all():
        raise ValueError(
            "decision values must be True or False (a missing value is not a decision)"
        )
    doubled = decisions.duplicated([*keys, "rater"], keep=False)
    if doubled.any():
        row = decisions.loc[doubled].iloc[0]
        raise ValueError(
            f"rater {row['rater']!r} decided {row['category']!r} on item {row['item']!r}, "
            f"sentence {row['sentence']!r} more than once"
        )
    frame = decisions[keys].assign(value=values.astype(bool))
    grouped = frame.groupby(keys, sort=True)["value"]
    result = pd.DataFrame(
        {
            "n_raters": grouped.size().astype(np.int64),
            "n_positive": grouped.sum().astype(np.int64),
        }
    ).reset_index()
    twice_positive = 2 * result["n_positive"]
    if tie == "negative":
        result["value"] = twice_positive > result["n_raters"]
    else:
        result["value"] = twice_positive >= result["n_raters"]
    return result[[*keys, "value", "n_raters", "n_positive"]]


# --- records ---------------------------------------------------------------------------------------


def dedupe_records(records: Iterable[Mapping]) -> DedupedRecords:
    """Keep the first of records sharing an ``_id``; report which ids were repeated.

    The released CHOCOLATE file holds four ids twice, as identical records: the
    paper's tables count them twice, a dataset should hold them once. Records
    that share an id but differ raise ValueError, since which one is right
    cannot be decided here. ``duplicate_ids`` lists each repeated id once, in
    order of first appearance.
    """
    kept: dict[str, Mapping] = {}
    duplicates: dict[str, None] = {}
    for position, record in enumerate(records):
        if "_id" not in record:
            raise ValueError(f"record {position} has no _id")
        key = record["_id"]
        if key in kept:
            if dict(record) != dict(kept[key]):
                raise ValueError(f"records with _id {key!r} differ, so neither can be dropped")
            duplicates[key] = None
            continue
        kept[key] = record
    return DedupedRecords(records=[dict(r) for r in kept.values()], duplicate_ids=list(duplicates))


def sentence_frame(
    records: Iterable[Mapping],
    split_map: Mapping[str, str] = DEFAULT_SPLIT_MAP,
    factual_categories: Iterable[str] = FACTUAL_CATEGORIES,
    *,
    categories: Sequence[str] = CATEGORIES,
) -> pd.DataFrame:
    """One row per caption sentence, with a boolean column per error category.

    Columns: record (position of the record in ``records``, which tells
    repeated records apart), item (``_id``), sentence (index within the
    caption), text, model, dataset, split (``split_map[model]``), one boolean
    column per category of ``categories`` (the seven of ``CATEGORIES`` unless
    a project defines others), and factual.

    Following CHOCOLATE (Table 2 and 10 captions): a sentence is factual iff it
    carries none of ``factual_categories`` (all categories but grammatical
    errors by default); a caption is factual iff all its sentences are.

    Raises ValueError for a record missing a key, sentences and labels of
    different lengths, an unknown label, or a model ``split_map`` lacks.
    """
    import pandas as pd

    categories = tuple(categories)
    factual_categories = tuple(factual_categories)
    _factual_columns(categories, factual_categories)
    # Column by column, marks as one boolean matrix: a dict per sentence took most of the time.
    columns = {name: [] for name in SENTENCE_COLUMNS[:7]}
    code = {category: j for j, category in enumerate(categories)}
    marked_rows, marked_columns = [], []
    for position, record in enumerate(records):
        absent = [k for k in RECORD_KEYS if k not in record]
        if absent:
            raise ValueError(f"record {position} lacks {', '.join(absent)}")
        sentences, labels = record["sentences"], record["labels"]
        if len(sentences) != len(labels):
            raise ValueError(
                f"record {record['_id']!r} has {len(sentences)} sentences but {len(labels)} label lists"
            )
        model = record["model"]
        if model not in split_map:
            raise ValueError(f"record {record['_id']!r}: model {model!r} has no split in split_map")
        first = len(columns["text"])
        for index, sentence_labels in enumerate(labels):
            strange = set(sentence_labels) - code.keys()
            if strange:
                raise ValueError(
                    f"record {record['_id']!r}, sentence {index}: unknown label(s) {sorted(strange)}"
                )
            for key in sentence_labels:
                marked_rows.append(first + index)
                marked_columns.append(code[key])
        count = len(sentences)
        columns["record"] += [position] * count
        columns["item"] += [record["_id"]] * count
        columns["sentence"] += range(count)
        columns["text"] += sentences
        columns["model"] += [model] * count
        columns["dataset"] += [record["dataset"]] * count
        columns["split"] += [split_map[model]] * count
    names = [*SENTENCE_COLUMNS[:7], *categories, "factual"]
    if not columns["text"]:
        return pd.DataFrame([], columns=names).astype(dict.fromkeys((*categories, "factual"), bool))
    marks = np.zeros((len(columns["text"]), len(categories)), dtype=bool)
    marks[marked_rows, marked_columns] = True
    return sentence_table(columns, marks, categories, factual_categories)


def _factual_columns(categories: Sequence[str], factual_categories: Sequence[str]) -> list[int]:
    unknown = [c for c in factual_categories if c not in categories]
    if unknown:
        raise ValueError(f"unknown factual categories: {', '.join(map(str, unknown))}")
    return [list(categories).index(c) for c in factual_categories]


def sentence_table(
    columns: Mapping[str, Sequence],
    marks: np.ndarray,
    categories: Sequence[str],
    factual_categories: Sequence[str],
) -> pd.DataFrame:
    """:func:`sentence_frame`'s frame from its columns (any of record ... split) and the
    sentences x ``categories`` marks: a boolean column per category, then factual."""
    import pandas as pd

    frame = pd.DataFrame(columns)
    for j, category in enumerate(categories):
        frame[category] = marks[:, j]
    frame["factual"] = ~marks[:, _factual_columns(categories, factual_categories)].any(axis=1)
    return frame


def _caption_frame(sentences_df: pd.DataFrame) -> pd.DataFrame:
    """One row per caption: factual iff every sentence is."""
    # `record` separates repeated records that share an item id; frames built
    # elsewhere without it fall back to the item id.
    key = "record" if "record" in sentences_df.columns else "item"
    extra = [c for c in ("split", "model", "dataset") if c in sentences_df.columns]
    grouped = sentences_df.groupby(key, sort=False)
    captions = grouped[extra].first()
    captions["factual"] = grouped["factual"].all()
    return captions.reset_index()


# --- tables ----------------------------------------------------------------------------------------


def factuality_table(sentences_df: pd.DataFrame) -> pd.DataFrame:
    """Factual and non-factual captions and sentences per split and in all (CHOCOLATE Tables 2, 10).

        factual sentence  <=> no factual error category on the sentence
        factual caption   <=> every sentence of the caption is factual

    Returns a DataFrame indexed by split (LVLM, LLM, FT, any others, then
    "all") with integer columns captions, factual_captions,
    nonfactual_captions, sentences, factual_sentences, nonfactual_sentences.

    Captions are told apart by ``record`` when the frame has it, so a record
    repeated in the input counts twice as in the paper, otherwise by ``item``.
    """
    import pandas as pd

    _require_columns(sentences_df, ["item", "split", "factual"], "sentences_df")
    captions = _caption_frame(sentences_df)

    def summary(sentences: pd.DataFrame, caps: pd.DataFrame) -> dict[str, int]:
        factual_captions = int(caps["factual"].sum())
        factual_sentences = int(sentences["factual"].sum())
        return {
            "captions": len(caps),
            "factual_captions": factual_captions,
            "nonfactual_captions": len(caps) - factual_captions,
            "sentences": len(sentences),
            "factual_sentences": factual_sentences,
            "nonfactual_sentences": len(sentences) - factual_sentences,
        }

    rows = {
        split: summary(
            sentences_df[sentences_df["split"] == split], captions[captions["split"] == split]
        )
        for split in _ordered(sentences_df["split"], SPLITS)
    }
    rows["all"] = summary(sentences_df, captions)
    table = pd.DataFrame.from_dict(rows, orient="index").astype(np.int64)
    table.index.name = "split"
    return table


def _rate_table(frame: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    grouped = frame.groupby(["model", "dataset"], sort=False)["factual"]
    table = pd.DataFrame(
        {"factual": grouped.sum().astype(np.int64), "total": grouped.size().astype(np.int64)}
    )
    table["nonfactual"] = table["total"] - table["factual"]
    table["factual_rate"] = table["factual"] / table["total"]
    table["error_rate"] = table["nonfactual"] / table["total"]
    order = [
        (model, dataset)
        for model in _ordered(frame["model"], MODELS)
        for dataset in _ordered(frame["dataset"], DATASETS)
        if (model, dataset) in table.index
    ]
    return table.loc[order, ["factual", "nonfactual", "total", "factual_rate", "error_rate"]]


def error_rate_tables(sentences_df: pd.DataFrame) -> ErrorRateTables:
    """Sentence- and caption-level factuality per model and chart source (CHOCOLATE Tables 5, 6).

        factual_rate = factual / total,    error_rate = nonfactual / total = 1 - factual_rate

    counted over sentences (Table 5) or over captions (Table 6), each as a
    share in [0, 1]; the paper prints factual_rate in percent. Both tables are
    indexed by (model, dataset) with columns factual, nonfactual, total,
    factual_rate, error_rate, rows in the paper's model order.
    """
    _require_columns(sentences_df, ["item", "model", "dataset", "factual"], "sentences_df")
    return ErrorRateTables(
        sentences=_rate_table(sentences_df), captions=_rate_table(_caption_frame(sentences_df))
    )


def error_type_rates(
    sentences_df: pd.DataFrame,
    *,
    by: str | Sequence[str] = "model",
    categories: Sequence[str] = CATEGORIES,
) -> pd.DataFrame:
    """Per group, the share of sentences carrying each error type (data of CHOCOLATE Figure 1).

        rate_{g,c} = #{sentences of group g labelled c} / #{sentences of group g}

    The paper's appendix describes Figure 1 this way ("the number of such
    errors divided by the number of sentences"). A sentence may carry several
    types, so a group's rates can sum to more than 1. ``by`` is a column or a
    list of columns, e.g. ``["dataset", "model"]`` for the two panels of the
    figure. Returns one row per group (paper order) and one column per
    category of ``categories`` present in ``sentences_df``.
    """
    import pandas as pd

    groups = [by] if isinstance(by, str) else list(by)
    categories = [c for c in categories if c in sentences_df.columns]
    _require_columns(sentences_df, groups, "sentences_df")
    if not categories:
        raise ValueError("sentences_df has no error category columns")
    rates = sentences_df.groupby(groups, sort=False)[categories].mean()
    preferred = {"model": MODELS, "dataset": DATASETS, "split": SPLITS}
    levels = [_ordered(sentences_df[g], preferred.get(g, ())) for g in groups]
    if len(groups) == 1:
        return rates.loc[levels[0]]
    order = [key for key in pd.MultiIndex.from_product(levels) if key in rates.index]
    return rates.loc[order]


def _display(value) -> str:
    return MODEL_NAMES.get(value, DATASET_NAMES.get(value, str(value)))


def error_type_figure_svg(rates_df: pd.DataFrame, *, title: str | None = None) -> str:
    """A stacked bar chart of ``error_type_rates`` output as an inline SVG string.

    One bar per row (models by display name; a (dataset, model) index gives
    two-line labels), one stacked segment per error category, heights as
    errors per sentence like CHOCOLATE Figure 1.
    """
    import pandas as pd
    from matplotlib.figure import Figure

    if not isinstance(rates_df, pd.DataFrame) or rates_df.empty:
        raise ValueError("rates_df must be a non-empty DataFrame of error rates")
    labels = [
        "\n".join(_display(v) for v in key) if isinstance(key, tuple) else _display(key)
        for key in rates_df.index
    ]
    # Figure, not pyplot: no global figure registry shared between request threads.
    fig = Figure(figsize=(max(6.0, 1.1 * len(labels) + 2.5), 4.2))
    ax = fig.add_subplot()
    positions = np.arange(len(labels))
    bottom = np.zeros(len(labels))
    colours = [
        "#4e79a7",
        "#f28e2b",
        "#e15759",
        "#76b7b2",
        "#59a14f",
        "#edc948",
        "#b07aa1",
        "#9c755f",
    ]
    for index, category in enumerate(rates_df.columns):
        heights = rates_df[category].to_numpy(dtype=float)
        ax.bar(
            positions,
            heights,
            bottom=bottom,
            width=0.7,
            label=CATEGORY_NAMES.get(category, str(category)),
            color=colours[index % len(colours)],
        )
        bottom += heights
    ax.set_xticks(positions, labels)
    ax.set_ylabel("Errors per sentence")
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(frameon=False, fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    if title:
        ax.set_title(title)
    return figure_to_svg(fig)
