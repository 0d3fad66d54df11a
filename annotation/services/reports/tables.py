"""The dataset statistics of a report: CHOCOLATE Tables 2/10, 5, 6 and Figure 1.

The tables come from ``analysis.captions`` over one record per labelled item,
built like the released ``chocolate.json`` records; rows are lists of dicts
keyed by plain names (split, model, dataset, category keys), in the paper's order.
"""

from __future__ import annotations

import numpy as np

from analysis.captions import (
    error_rate_tables,
    error_type_figure_svg,
    error_type_rates,
    factuality_table,
    sentence_frame,
)
from analysis.json_safe import finite_or_none
from annotation.selectors.agreement import CategoryInfo


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


def dataset_tables(records: list[dict], categories: list[CategoryInfo]) -> tuple[dict | None, str]:
    """The tables and the Figure 1 SVG for ``records`` (dicts with _id, sentences, labels,
    model, dataset, split); ``(None, "")`` when there are no records."""
    if not records:
        return None, ""
    keys = [c.key for c in categories]
    split_map = {record["model"]: record["split"] for record in records}
    sentences = sentence_frame(
        records,
        split_map=split_map,
        factual_categories=[c.key for c in categories if c.factual],
        categories=keys,
    )
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
