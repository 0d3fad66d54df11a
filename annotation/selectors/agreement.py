"""Frames of a project's labels for agreement, aggregation and exports.

Label sets are read as plain tuples in chunks (``values_list(...).iterator``),
never as model instances, and turned into numpy arrays: a project of 100,000
sentences x 3 annotators is 300,000 (item, sentence, annotator) rows, which
stay a few megabytes as arrays where model objects would take gigabytes.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from django.db.models import Count, Func, IntegerField, Max, Sum, TextField
from django.db.models.functions import Cast

from annotation.models import (
    Category,
    GoldItem,
    Item,
    LabelSet,
    Project,
    ProjectMember,
    Qualification,
    QualificationRound,
    ReferenceLabels,
)
from annotation.selectors.quality import annotator_states, counted_label_sets, label_set_flags

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CategoryInfo",
    "LabelDecisions",
    "annotator_pseudonyms",
    "annotator_states",
    "counted_label_sets",
    "item_ids",
    "item_records",
    "item_shapes",
    "label_decisions",
    "label_set_flags",
    "label_set_rows",
    "reference_labels",
    "report_categories",
    "report_fingerprint",
]

CHUNK = 5000


@dataclass(frozen=True)
class CategoryInfo:
    key: str
    name: str
    factual: bool


def report_categories(project: Project) -> list[CategoryInfo]:
    return [
        CategoryInfo(key, name, factual)
        for key, name, factual in Category.objects.filter(project=project)
        .order_by("position", "pk")
        .values_list("key", "name", "is_factual")
    ]


# --- which label sets count ------------------------------------------------------------------------
# The quality selectors decide whose labels are data (qualified, not blocked,
# non-control); agreement, aggregation and exports all read through them.


def _standing_digest(project: Project) -> list:
    """What of the quality state decides which label sets count, for report fingerprints."""
    return [
        QualificationRound.objects.filter(project=project).exists(),
        sorted(
            Qualification.objects.filter(project=project).values_list(
                "annotator_id", "state", "work_state", "labels_included"
            )
        ),
        list(
            GoldItem.objects.filter(project=project)
            .aggregate(n=Count("pk"), last=Max("pk"))
            .values()
        ),
    ]


def annotator_pseudonyms(project: Project) -> dict[int, str]:
    """Stable pseudonymous ids (A01, A02 ...) in the order annotators joined the project.

    New members only ever append, so an id once published keeps meaning the same
    person in later exports of the project. Annotators with label sets but no
    membership any more come last, by account.
    """
    order = list(
        ProjectMember.objects.filter(project=project)
        .order_by("joined_at", "pk")
        .values_list("annotator_id", flat=True)
    )
    known = set(order)
    order += [
        user_id
        for user_id in LabelSet.objects.filter(project=project)
        .order_by("annotator_id")
        .values_list("annotator_id", flat=True)
        .distinct()
        if user_id not in known
    ]
    width = max(2, len(str(len(order))))
    return {user_id: f"A{n:0{width}d}" for n, user_id in enumerate(order, start=1)}


# --- decisions -------------------------------------------------------------------------------------


@dataclass
class LabelDecisions:
    """Every counted (item, sentence, annotator) with the categories the annotator marked.

    One row per rated sentence; ``marks[row, j]`` says whether category
    ``categories[j]`` was marked. ``frame()`` gives the long form the analysis
    functions take: one row per (item, sentence, rater, category) with a boolean
    value, False included.
    """

    categories: list[str]
    item: np.ndarray
    sentence: np.ndarray
    rater: np.ndarray
    marks: np.ndarray
    label_sets: int = 0
    unknown_keys: set[str] = field(default_factory=set)

    def __len__(self) -> int:
        return len(self.item)

    def frame(self) -> pd.DataFrame:
        import pandas as pd

        n, c = self.marks.shape
        return pd.DataFrame(
            {
                "item": np.repeat(self.item, c),
                "sentence": np.repeat(self.sentence, c),
                "rater": np.repeat(self.rater, c),
                "category": pd.Categorical.from_codes(
                    np.tile(np.arange(c, dtype=np.int16), n), categories=self.categories
                ),
                "value": self.marks.reshape(-1),
            }
        )

    def any_of(self, keys) -> np.ndarray:
        """Per rated sentence: whether the annotator marked any of ``keys``."""
        columns = [j for j, key in enumerate(self.categories) if key in set(keys)]
        if not columns:
            return np.zeros(len(self), dtype=bool)
        return self.marks[:, columns].any(axis=1)


def _sentence_masks(text: str, bit: dict[str, int], unknown: set[str]) -> tuple[int, ...]:
    """One label set's JSON text as a bit mask of marked categories per sentence."""
    masks = []
    for marked in json.loads(text):
        mask = 0
        for key in marked:
            value = bit.get(key)
            if value is None:
                unknown.add(key)
            else:
                mask |= value
        masks.append(mask)
    return tuple(masks)


def label_decisions(
    project: Project, *, categories: list[str] | None = None, include_excluded: bool = False
) -> LabelDecisions:
    """The counted label sets of ``project`` as :class:`LabelDecisions`.

    A category added after some label sets were submitted reads as not marked in
    them. Keys no longer among the categories are ignored and reported in
    ``unknown_keys``.
    """
    keys = (
        list(categories) if categories is not None else [c.key for c in report_categories(project)]
    )
    if len(keys) > 63:
        raise ValueError("A project can have at most 63 categories in a report.")
    bit = {key: 1 << j for j, key in enumerate(keys)}
    ids, items, raters, lengths = array("q"), array("q"), array("q"), array("q")
    masks = array("Q")
    unknown: set[str] = set()
    # Labels come as JSON text and are decoded once per distinct value: most label sets
    # repeat one of a few patterns (no error anywhere above all), and decoding per row
    # was the largest part of reading them.
    decoded: dict[str, tuple[int, ...]] = {}
    rows = (
        counted_label_sets(project, include_excluded=include_excluded)
        .order_by()
        .annotate(labels_text=Cast("labels", TextField()))
        .values_list("pk", "item_id", "annotator_id", "labels_text")
        .iterator(chunk_size=CHUNK)
    )
    for pk, item_id, annotator_id, text in rows:
        sentence_masks = decoded.get(text)
        if sentence_masks is None:
            sentence_masks = decoded[text] = _sentence_masks(text, bit, unknown)
        ids.append(pk)
        items.append(item_id)
        raters.append(annotator_id)
        lengths.append(len(sentence_masks))
        masks.extend(sentence_masks)
    # Submission (primary key) order: with adaptive overlap, kappa takes each item's first
    # k_min. Sorted here: the database sorted every row with its labels, spilling to disk.
    order, rows_order = submission_order(_int64(ids), _int64(lengths))
    per_set = _int64(lengths)[order]
    starts = np.cumsum(per_set) - per_set
    mask_array = (np.frombuffer(masks, dtype=np.uint64) if masks else np.zeros(0, np.uint64))[
        rows_order
    ]
    # Column by column: shifting every mask by every bit at once made a rows x categories
    # uint64 table eight times the size of the marks.
    marks = np.empty((len(mask_array), len(keys)), dtype=bool)
    for j in range(len(keys)):
        np.not_equal(mask_array & np.uint64(1 << j), 0, out=marks[:, j])
    return LabelDecisions(
        categories=keys,
        item=np.repeat(_int64(items)[order], per_set),
        sentence=(np.arange(len(mask_array)) - np.repeat(starts, per_set)).astype(np.int32),
        rater=np.repeat(_int64(raters)[order], per_set),
        marks=marks,
        label_sets=len(items),
        unknown_keys=unknown,
    )


def _int64(values: array) -> np.ndarray:
    return np.frombuffer(values, dtype=np.int64) if values else np.zeros(0, np.int64)


def submission_order(ids: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Label sets read in any order, put in ``ids`` order: (the sets' new order, and that of
    their rows, ``lengths[i]`` consecutive rows for set i)."""
    order = np.argsort(ids, kind="stable")
    starts = np.cumsum(lengths) - lengths
    ordered = lengths[order]
    rows = np.arange(int(ordered.sum())) + np.repeat(
        starts[order] - (np.cumsum(ordered) - ordered), ordered
    )
    return order, rows


# --- items and reference labels --------------------------------------------------------------------


def item_records(project: Project, *, ids=None):
    """(pk, external_id, sentences, model, dataset, split, image, image_url) in project order."""
    items = Item.objects.filter(project=project)
    if ids is not None:
        items = items.filter(pk__in=ids)
    return (
        items.order_by("position", "pk")
        .values_list(
            "pk", "external_id", "sentences", "model", "dataset", "split", "image", "image_url"
        )
        .iterator(chunk_size=CHUNK)
    )


class _JSONArrayLength(Func):
    function = "JSON_ARRAY_LENGTH"  # SQLite
    output_field = IntegerField()

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, function="JSONB_ARRAY_LENGTH", **extra)


def item_shapes(project: Project) -> list[tuple]:
    """(pk, external_id, number of sentences, model, dataset, split) in project order.

    The dataset tables need each item's sentences counted, not their text, which for
    25,000 captions is most of what reading the items costs.
    """
    rows = (
        Item.objects.filter(project=project)
        .order_by("position", "pk")
        .values_list(
            "pk", "external_id", _JSONArrayLength("sentences"), "model", "dataset", "split"
        )
        .iterator(chunk_size=CHUNK)
    )
    # Model, source and split repeat from item to item: one string each, not one per item.
    strings: dict[str, str] = {}
    one = strings.setdefault
    return [
        (pk, external_id, count, one(model, model), one(dataset, dataset), one(split, split))
        for pk, external_id, count, model, dataset, split in rows
    ]


def reference_labels(project: Project) -> dict[int, list[list[str]]]:
    """Imported reference labels per item id (items without any are absent)."""
    return dict(
        ReferenceLabels.objects.filter(item__project=project)
        .order_by()
        .values_list("item_id", "labels")
        .iterator(chunk_size=CHUNK)
    )


def item_ids(project: Project, *, ids=None) -> dict[int, str]:
    """Item id -> external id, of every item or of those in ``ids``."""
    items = Item.objects.filter(project=project)
    if ids is not None:
        items = items.filter(pk__in=ids)
    return dict(items.order_by().values_list("pk", "external_id").iterator(chunk_size=CHUNK))


# --- raw label sets for exports --------------------------------------------------------------------


def label_set_rows(project: Project):
    """Every label set of the project, counted or not, oldest first, as tuples:

    (label set id, item id, external id, annotator id, labels, active seconds,
    leased at, submitted at).
    """
    return (
        LabelSet.objects.filter(project=project)
        .order_by("submitted_at", "pk")
        .values_list(
            "pk",
            "item_id",
            "item__external_id",
            "annotator_id",
            "labels",
            "active_seconds",
            "assignment__leased_at",
            "submitted_at",
        )
        .iterator(chunk_size=CHUNK)
    )


# --- what a report was computed from ---------------------------------------------------------------


def report_fingerprint(project: Project, *, labels: str, include_excluded: bool = False) -> str:
    """A short digest of everything a report depends on; it changes when the report would."""
    if labels == "reference":
        source = ReferenceLabels.objects.filter(item__project=project).aggregate(
            n=Count("pk"), last=Max("pk")
        )
    else:
        source = counted_label_sets(project, include_excluded=include_excluded).aggregate(
            n=Count("pk"), last=Max("pk")
        )
    items = Item.objects.filter(project=project).aggregate(n=Count("pk"), last=Max("pk"))
    parts = {
        "labels": labels,
        "include_excluded": include_excluded,
        "source": [source["n"], source["last"]],
        "standing": _standing_digest(project),
        "items": [items["n"], items["last"]],
        "k": project.annotators_per_item,
        "tie": project.tie_rule,
        "method": project.aggregation_method,
        # The report shows control scores beside the aggregation's estimates.
        "controls": list(
            Qualification.objects.filter(project=project)
            .aggregate(n=Sum("controls_done"), score=Sum("control_score_sum"))
            .values()
        ),
        "split_map": project.split_map,
        "categories": [(c.key, c.name, c.factual) for c in report_categories(project)],
    }
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
    return f"{source['n']}:{digest[:32]}"
