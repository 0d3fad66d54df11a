"""The dataset statistics of a report: CHOCOLATE Tables 2/10, 5, 6 and Figure 1.

The tables come from ``analysis.captions`` over one row per sentence of each
labelled item: built from the aggregated labels' arrays (annotators' labels), or
from records like the released ``chocolate.json`` ones (reference labels). Rows
are lists of dicts keyed by plain names (split, model, dataset, category keys),
in the paper's order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from analysis.captions import (
    error_rate_tables,
    error_type_figure_svg,
    error_type_rates,
    factuality_table,
    sentence_frame,
    sentence_table,
)
from analysis.json_safe import finite_or_none
from annotation.selectors.agreement import CategoryInfo
from annotation.services.reports.counts import SentenceLabels

if TYPE_CHECKING:
    import pandas as pd


def _number(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating | float) and not isinstance(value, bool):
        return finite_or_none(value)
    return value


def _rows(frame, index_names) -> list[dict]:
    # Column by column, so integer counts stay integers (a row Series would make them floats).
    columns = {str(c): frame[c].tolist() for c in frame.columns}
    rows = []
    for n, key in enumerate(frame.index):
        keys = key if isinstance(key, tuple) else (key,)
        row = dict(zip(index_names, (str(k) for k in keys), strict=True))
        row.update({column: _number(values[n]) for column, values in columns.items()})
        rows.append(row)
    return rows


def record_sentences(records: list[dict], categories: list[CategoryInfo]) -> pd.DataFrame | None:
    """The sentence frame of ``records`` (dicts with _id, sentences, labels, model, dataset,
    split); None when there are none."""
    if not records:
        return None
    return sentence_frame(
        records,
        # One split per model: the last record's.
        split_map={record["model"]: record["split"] for record in records},
        factual_categories=[c.key for c in categories if c.factual],
        categories=[c.key for c in categories],
    )


def labelled_sentences(
    shapes: list[tuple], labels: SentenceLabels, categories: list[CategoryInfo]
) -> pd.DataFrame | None:
    """What :func:`record_sentences` makes of ``labelled_records``, from arrays: one row per
    sentence of each item (``shapes``: pk, external id, sentences, model, dataset, split, in
    project order) whose labels cover exactly its sentences; None when no item's do.

    The sentences' text is not read: no table counts it.
    """
    import pandas as pd

    voted, starts = np.unique(labels.item, return_index=True)
    if not len(voted) or not shapes:
        return None
    # As labelled_records: an item's labels run to its last labelled sentence, and must
    # number its sentences.
    lengths = np.maximum.reduceat(labels.sentence, starts) + 1
    pks = np.array([shape[0] for shape in shapes], dtype=np.int64)
    counts = np.array([shape[2] for shape in shapes], dtype=np.int64)
    at = np.minimum(np.searchsorted(voted, pks), len(voted) - 1)
    kept = np.flatnonzero((voted[at] == pks) & (lengths[at] == counts))
    if not len(kept):
        return None
    counts = counts[kept]
    first_row = np.cumsum(counts) - counts
    # Each labelled sentence's row: its item's first row plus its index.
    record_of = np.full(len(voted), -1)
    record_of[at[kept]] = np.arange(len(kept))
    record = np.repeat(record_of, np.diff(np.append(starts, len(labels.item))))
    placed = record >= 0
    marks = np.zeros((int(counts.sum()), len(categories)), dtype=bool)
    marks[first_row[record[placed]] + labels.sentence[placed]] = labels.value[placed]

    rows = [shapes[n] for n in kept.tolist()]
    # One split per model, the last record's, as in record_sentences.
    split_of = {row[3]: row[5] for row in rows}

    def column(values: list) -> pd.Categorical:
        # Categorical over plain Python strings: a column of 100,000 strings would go
        # through Arrow, whose memory pool keeps what the groupbys over it took.
        uniques, codes = np.unique(np.array(values, dtype=object), return_inverse=True)
        return pd.Categorical.from_codes(
            np.repeat(codes.reshape(-1), counts), pd.Index(uniques, dtype=object)
        )

    columns = {
        "record": np.repeat(np.arange(len(kept)), counts),
        "item": column([row[1] for row in rows]),
        "sentence": np.arange(len(marks)) - np.repeat(first_row, counts),
        "model": column([row[3] for row in rows]),
        "dataset": column([row[4] for row in rows]),
        "split": column([split_of[row[3]] for row in rows]),
    }
    keys = [c.key for c in categories]
    return sentence_table(columns, marks, keys, [c.key for c in categories if c.factual])


def sentence_tables(
    sentences: pd.DataFrame | None, categories: list[CategoryInfo]
) -> tuple[dict | None, str]:
    """The tables and the Figure 1 SVG of a sentence frame; ``(None, "")`` without one."""
    if sentences is None:
        return None, ""
    keys = [c.key for c in categories]
    factuality = factuality_table(sentences)
    rates = error_rate_tables(sentences)
    by_type = error_type_rates(sentences, by=["dataset", "model"], categories=keys)
    group_sizes = sentences.groupby(["dataset", "model"], sort=False).size()
    error_types = _rows(by_type, ["dataset", "model"])
    for row in error_types:
        row["sentences"] = int(group_sizes.loc[(row["dataset"], row["model"])])
    names = {c.key: c.name for c in categories}
    figure = error_type_figure_svg(
        by_type.rename(columns=names), title="Errors per sentence, by source dataset and model"
    )
    tables = {
        "factuality": _rows(factuality, ["split"]),
        "sentence_rates": _rows(rates.sentences, ["model", "dataset"]),
        "caption_rates": _rows(rates.captions, ["model", "dataset"]),
        "error_types": error_types,
    }
    return tables, figure
