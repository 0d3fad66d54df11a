"""The report's aggregation part: annotator estimates beside control scores, least certain labels.

For the project's aggregation method: each annotator's estimated sensitivity
P(marks the category | the sentence has the error) and specificity
P(leaves it unmarked | the sentence has no such error), per category, next to
their running control score from the quality pages (``Qualification.control_accuracy``,
scored by the project's control rule); and the sentence-category labels whose
posterior P(label = 1) is closest to 0.5.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from analysis.aggregation import METHODS
from analysis.json_safe import finite_or_none
from annotation.models import Project, QualityPolicy
from annotation.selectors.agreement import item_records
from annotation.selectors.quality import control_scores
from annotation.services.reports.counts import SentenceLabels

if TYPE_CHECKING:
    import pandas as pd

UNCERTAIN_ROWS = 25


def _estimate_rows(estimates: pd.DataFrame, pseudonyms: dict, controls: dict) -> list[dict]:
    rows = []
    for r in estimates.itertuples(index=False):
        score, done = controls.get(int(r.rater), (None, 0))
        rows.append(
            {
                "annotator": pseudonyms.get(int(r.rater), str(r.rater)),
                "category": r.category,
                "sensitivity": finite_or_none(r.sensitivity),
                "specificity": finite_or_none(r.specificity),
                "control_score": finite_or_none(score),
                "controls": int(done),
            }
        )
    rows.sort(key=lambda row: row["annotator"])
    return rows


def _least_certain(labels: SentenceLabels | None) -> pd.DataFrame:
    """The UNCERTAIN_ROWS labels with P(label = 1) closest to 0.5, in item/sentence/category
    order on ties: item, sentence, category, value, p_positive."""
    import pandas as pd

    columns = ["item", "sentence", "category", "value", "p_positive"]
    if labels is None:
        return pd.DataFrame(columns=columns)
    # Row-major, the cells already run in item, sentence and category order, which breaks
    # ties. Only the closest cells are sorted: ranking all 700,000 took tens of MB.
    p_positive = labels.p_positive.reshape(-1)
    distance = np.abs(p_positive - 0.5)
    np.round(distance, 12, out=distance)
    distance[np.isnan(distance)] = np.inf  # a cell the method did not label
    wanted = min(UNCERTAIN_ROWS, len(distance))
    if not wanted:
        return pd.DataFrame(columns=columns)
    cutoff = np.partition(distance, wanted - 1)[wanted - 1]
    closer = np.flatnonzero(distance < cutoff)
    chosen = np.concatenate([closer, np.flatnonzero(distance == cutoff)[: wanted - len(closer)]])
    chosen = chosen[np.argsort(distance[chosen], kind="stable")]
    chosen = chosen[np.isfinite(distance[chosen])]
    row, column = np.divmod(chosen, len(labels.categories))
    return pd.DataFrame(
        {
            "item": labels.item[row],
            "sentence": labels.sentence[row],
            "category": [labels.categories[j] for j in column.tolist()],
            "value": labels.value.reshape(-1)[chosen],
            "p_positive": p_positive[chosen],
        },
        columns=columns,
    )


def _uncertain_rows(project: Project, rows: pd.DataFrame) -> list[dict]:
    wanted = set(rows["item"].astype(int).tolist())
    texts = {
        pk: (external_id, sentences)
        for pk, external_id, sentences, *_ in item_records(project, ids=wanted)
    }
    result = []
    for r in rows.itertuples(index=False):
        external_id, sentences = texts.get(int(r.item), ("", []))
        sentence = int(r.sentence)
        result.append(
            {
                "item": external_id,
                "sentence": sentence,
                "category": r.category,
                "p_positive": finite_or_none(r.p_positive),
                "label": bool(r.value),
                "text": sentences[sentence] if sentence < len(sentences) else "",
            }
        )
    return result


def aggregation_section(
    project: Project,
    method: str,
    estimates: pd.DataFrame,
    labels: SentenceLabels | None,
    *,
    pseudonyms: dict[int, str],
) -> dict:
    """The JSON part: method, per (annotator, category) estimates, least certain labels."""
    policy = QualityPolicy.objects.filter(project=project).first() or QualityPolicy()
    return {
        "method": method,
        "method_name": METHODS[method],
        "estimated": method != "majority",
        "control_rule": policy.control_rule,
        "estimates": _estimate_rows(estimates, pseudonyms, control_scores(project)),
        "uncertain": _uncertain_rows(project, _least_certain(labels)),
    }
