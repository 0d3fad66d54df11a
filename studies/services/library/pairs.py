"""Writing chart pairs into a chart set: the one place imports and the generator store pairs.

A pair arrives fully validated (images decoded, keys parsed). Writing it is all or nothing:
image files are written first under content-hash names, then every row changes in one
transaction; if that fails, the files this call created are removed again, so a failed
import leaves neither rows nor files behind.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.utils.text import slugify

from analysis.tables import natural_key
from core.models import User
from studies.images import ValidatedImage, generated_name
from studies.manipulations import BY_SLUG
from studies.models import (
    AttentionCheck,
    Chart,
    ChartGroup,
    ChartSet,
    ManipulationType,
    Question,
    Response,
)
from studies.models.library import chart_image_path

logger = logging.getLogger(__name__)


# Page paths under /studies/library/ that a set's slug must not shadow.
RESERVED_SLUGS = frozenset({"new", "import", "generator", "manipulations"})


def slug_problem(slug: str) -> str | None:
    """Why ``slug`` cannot name a chart set, or None."""
    if not slug or slugify(slug) != slug:
        return f"“{slug}” is not a valid slug; use lower-case letters, digits and dashes."
    if slug in RESERVED_SLUGS:
        return f"“{slug}” is reserved for a page of the library; choose another slug."
    return None


def chartset_insert(**fields) -> ChartSet:
    """Create a set; a slug taken meanwhile by a concurrent request is a 400, not a 500."""
    try:
        with transaction.atomic():
            return ChartSet.objects.create(**fields)
    except IntegrityError:
        raise ValidationError(
            {"slug": f"The slug “{fields['slug']}” was just taken; choose another or try again."}
        ) from None


@dataclass
class ChartInput:
    version: int
    image: ValidatedImage
    original_name: str = ""
    alt_text: str = ""


@dataclass
class PairInput:
    """One question (``G7_Q1``) with its two charts, ready to store."""

    group: str
    code: str
    chart_type: str
    manipulation: str  # a slug from studies.manipulations
    manipulation_label: str
    text: str
    stem: str
    answer_type: str
    options: list[str]
    answer_key: str
    key_value: Any
    charts: list[ChartInput]
    spec: dict = field(default_factory=dict)


@dataclass
class WriteSummary:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # in the set but not in this write
    new_manipulations: list[str] = field(default_factory=list)
    files_written: int = 0

    def as_dict(self) -> dict:
        return {
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "kept": self.kept,
            "new_manipulations": self.new_manipulations,
            "files_written": self.files_written,
        }


def image_storage_name(image: ValidatedImage) -> str:
    return chart_image_path(None, generated_name(image.data, image.extension))


def image_files_store(images: list[ValidatedImage]) -> tuple[dict[int, str], list[str]]:
    """Store each image under its content name.

    Returns the storage name per image (keyed by ``id(image)``) and the names created now.
    """
    names: dict[int, str] = {}
    created: list[str] = []
    try:
        for image in images:
            if id(image) in names:
                continue
            name = image_storage_name(image)
            if not default_storage.exists(name):
                # Another import may write the same content at the same moment; the storage
                # then picks a free name, whose bytes are just as valid.
                name = default_storage.save(name, ContentFile(image.data))
                created.append(name)
            names[id(image)] = name
    except Exception:
        image_files_discard(created)
        raise
    return names, created


def image_in_use(name: str) -> bool:
    """Whether a chart or an attention check shows the stored file ``name`` (both are kept
    under charts/ by their content hash, so the same bytes are one file)."""
    return (
        Chart.objects.filter(image=name).exists()
        or AttentionCheck.objects.filter(image=name).exists()
    )


def image_files_discard(names: list[str]) -> None:
    """Remove files this process wrote that no chart or attention check refers to."""
    for name in names:
        if not image_in_use(name):
            try:
                default_storage.delete(name)
            except OSError:
                logger.warning("Could not remove the unused chart image %s", name)


def image_files_discard_on_commit(names: set[str]) -> None:
    names = {n for n in names if n}
    if names:
        transaction.on_commit(lambda: image_files_discard(sorted(names)))


def manipulation_types_ensure(
    *, wanted: dict[str, str], user: User | None
) -> tuple[dict[str, ManipulationType], list[str]]:
    """Manipulation types by slug, creating those that do not exist yet.

    A built-in slug missing from the table (a database set up without the seeding migration's
    data) is restored as built in; any other slug becomes a researcher-defined type.
    """
    found = {m.slug: m for m in ManipulationType.objects.filter(slug__in=wanted)}
    created = []
    for slug, label in sorted(wanted.items()):
        if slug in found:
            continue
        builtin = BY_SLUG.get(slug)
        if builtin is not None:
            found[slug] = ManipulationType.objects.create(
                slug=slug,
                label=builtin.label,
                description=builtin.description,
                vocabulary=list(builtin.vocabulary),
                builtin=True,
            )
            continue
        found[slug] = ManipulationType.objects.create(
            slug=slug, label=label[:100] or slug, created_by=user
        )
        created.append(slug)
    return found, created


# What a participant's answer is scored against: a pair's answer type, options, key and
# tolerance. Answers are scored when they are given (Response.correct), so once live
# participants have answered a pair, changing these would leave the study's HMI computed
# against two keys. Pilot and preview answers do not hold a pair back: the pilot is where a
# wrong key is found and fixed.
SCORING_FIELDS = ("answer_type", "options", "answer_key", "key_value", "tolerance")


def studies_with_live_answers(question_ids) -> dict[int, list[str]]:
    """For each of ``question_ids`` that live participants have answered, the studies' titles."""
    rows = (
        Response.objects.filter(
            trial__question_id__in=list(question_ids),
            session__is_pilot=False,
            session__is_preview=False,
        )
        .values_list("trial__question_id", "session__study__title")
        .order_by()  # the model's ordering would make every answer a distinct row
        .distinct()
    )
    found: dict[int, set[str]] = {}
    for question_id, title in rows:
        found.setdefault(question_id, set()).add(title)
    return {k: sorted(v) for k, v in found.items()}


def scoring_change_refusal(code: str, studies: list[str]) -> str:
    """Why a pair's scoring cannot change (the one wording for imports and edits)."""
    named = ", ".join(f"“{title}”" for title in studies)
    return (
        f"{code}: its answer key, type, options or tolerance would change, but live participants of "
        f"{named} have answered it, and their answers were scored against the key they saw. "
        "Import or edit it in a new chart set instead."
    )


def scoring_changes_refused(chart_set: ChartSet, pairs: list[PairInput]) -> list[str]:
    """The refusals for ``pairs`` that would change the scoring of pairs already answered live."""
    existing = {
        q.code: q
        for q in Question.objects.filter(chart_set=chart_set, code__in=[p.code for p in pairs])
    }
    changing = []
    for pair in pairs:
        question = existing.get(pair.code)
        if question is None:
            continue
        # The scoring fields the upload carries (an import sets no tolerance).
        new = {k: getattr(pair, k) for k in SCORING_FIELDS if hasattr(pair, k)}
        new["options"] = list(new.get("options", ()))
        if any(getattr(question, k) != v for k, v in new.items()):
            changing.append(question)
    answered = studies_with_live_answers(q.pk for q in changing)
    return [scoring_change_refusal(q.code, answered[q.pk]) for q in changing if q.pk in answered]


def pairs_write(
    *,
    chart_set: ChartSet,
    pairs: list[PairInput],
    user: User | None,
    prune: bool = False,
    group_conflict: str = "update",
) -> WriteSummary:
    """Create or update ``pairs`` in ``chart_set`` (matched by question code).

    ``group_conflict="error"`` refuses a pair whose group already exists with another chart
    type or manipulation (a single generated pair must not silently change its group);
    ``"update"`` lets an import, which describes whole groups, redefine them. ``prune``
    removes the set's pairs that are not in ``pairs``.
    """
    if refusals := scoring_changes_refused(chart_set, pairs):
        raise ValidationError({"pairs": refusals})
    images = [c.image for p in pairs for c in p.charts]
    names, created_files = image_files_store(images)
    try:
        with transaction.atomic():
            summary = _write_rows(chart_set, pairs, user, names, prune, group_conflict)
            summary.files_written = len(created_files)
    except Exception:
        image_files_discard(created_files)
        raise
    return summary


def _write_rows(chart_set, pairs, user, names, prune, group_conflict) -> WriteSummary:
    # Writers of one set take turns (a double-clicked save, two imports at once): the second
    # then sees the first one's rows instead of colliding with them on the unique codes.
    ChartSet.objects.select_for_update().filter(pk=chart_set.pk).first()
    summary = WriteSummary()
    wanted = {p.manipulation: p.manipulation_label for p in pairs}
    wanted.setdefault(ManipulationType.NONE, "None")
    manipulations, summary.new_manipulations = manipulation_types_ensure(wanted=wanted, user=user)
    groups = _groups_write(chart_set, pairs, manipulations, group_conflict)

    questions = {q.code: q for q in Question.objects.filter(chart_set=chart_set)}
    charts = {
        (c.question_id, c.version): c for c in Chart.objects.filter(question__chart_set=chart_set)
    }
    replaced_files: set[str] = set()
    for pair in pairs:
        question, changed = _question_write(chart_set, pair, groups[pair.group], questions)
        for chart_input in pair.charts:
            manipulation = (
                manipulations[pair.manipulation]
                if chart_input.version == 2
                else manipulations[ManipulationType.NONE]
            )
            key = (question.pk, chart_input.version)
            changed |= _chart_write(
                question, pair, chart_input, manipulation, names, charts.get(key), replaced_files
            )
        target = summary.created if pair.code not in questions else summary.updated
        (target if changed else summary.unchanged).append(pair.code)

    written = {p.code for p in pairs}
    leftover = sorted((q for code, q in questions.items() if code not in written), key=_natural)
    if prune:
        _questions_prune(chart_set, leftover, summary, replaced_files)
    else:
        summary.kept = [q.code for q in leftover]
    image_files_discard_on_commit(replaced_files)
    return summary


def _groups_write(chart_set, pairs, manipulations, group_conflict) -> dict[str, ChartGroup]:
    """The set's groups by code, creating new ones and redefining changed ones."""
    groups = {g.code: g for g in ChartGroup.objects.filter(chart_set=chart_set)}
    for pair in pairs:
        manipulation = manipulations[pair.manipulation]
        group = groups.get(pair.group)
        if group is None:
            group = ChartGroup.objects.create(
                chart_set=chart_set,
                code=pair.group,
                chart_type=pair.chart_type,
                manipulation=manipulation,
            )
            groups[pair.group] = group
        elif (group.chart_type, group.manipulation_id) != (pair.chart_type, manipulation.pk):
            if group_conflict == "error":
                raise ValidationError(
                    {
                        "group": (
                            f"Group {group.code} holds {group.get_chart_type_display().lower()} "
                            f"charts with the manipulation “{group.manipulation.label}”; a group "
                            "has one chart type and one manipulation. Use another group id."
                        )
                    }
                )
            group.chart_type, group.manipulation = pair.chart_type, manipulation
            group.save(update_fields=["chart_type", "manipulation"])
            Chart.objects.filter(question__group=group, version=Chart.Version.MANIPULATED).update(
                manipulation=manipulation
            )
    return groups


def _question_write(chart_set, pair, group, questions) -> tuple[Question, bool]:
    """Create or update the pair's question; say whether anything changed."""
    fields = {
        "group_id": group.pk,
        "text": pair.text,
        "stem": pair.stem,
        "answer_type": pair.answer_type,
        "options": list(pair.options),
        "answer_key": pair.answer_key,
        "key_value": pair.key_value,
        "spec": pair.spec or {},
    }
    question = questions.get(pair.code)
    if question is None:
        return Question.objects.create(chart_set=chart_set, code=pair.code, **fields), True
    dirty = [k for k, v in fields.items() if getattr(question, k) != v]
    if dirty:
        for k in dirty:
            setattr(question, k, fields[k])
        question.save(update_fields=[*dirty, "updated_at"])
    return question, bool(dirty)


def _chart_write(
    question, pair, chart_input, manipulation, names, chart, replaced_files: set[str]
) -> bool:
    """Create or update one chart of the pair; say whether anything changed.

    An image that is replaced goes into ``replaced_files``, to be deleted once the write commits.
    """
    name = names[id(chart_input.image)]
    image = chart_input.image
    values = {
        "chart_id": f"{pair.code}_{chart_input.version}",
        "manipulation_id": manipulation.pk,
        "image_sha256": name.rsplit("/", 1)[-1].split(".", 1)[0],
        "width": image.width,
        "height": image.height,
        "alt_text": chart_input.alt_text[:300],
        "original_name": chart_input.original_name[:255],
    }
    if chart is None:
        Chart.objects.create(question=question, version=chart_input.version, image=name, **values)
        return True
    dirty = [k for k, v in values.items() if getattr(chart, k) != v]
    if chart.image.name != name:
        replaced_files.add(chart.image.name)
        chart.image.name = name
        dirty.append("image")
    if dirty:
        for k, v in values.items():
            setattr(chart, k, v)
        chart.save(update_fields=dirty)
    return bool(dirty)


def _questions_prune(chart_set, leftover, summary: WriteSummary, replaced_files: set[str]) -> None:
    """Delete the set's questions the write did not name, and the groups left empty."""
    for question in leftover:
        replaced_files.update(c.image.name for c in question.charts.all())
        summary.removed.append(question.code)
        try:
            question.delete()
        except ProtectedError:
            raise ValidationError(
                {
                    "prune": (
                        f"{question.code} is used elsewhere (in a study) and cannot be "
                        "removed; keep it in the benchmark or import without removing pairs."
                    )
                }
            ) from None
    ChartGroup.objects.filter(chart_set=chart_set, questions__isnull=True).delete()


def _natural(question: Question):
    return natural_key(question.code)
