"""Edits researchers make in the library: sets, questions and keys, images, manipulation types."""

from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import ProtectedError

from core.db.protection import delete_protected
from core.models import User
from core.services.audit import audit_record
from core.slugs import title_has_words
from studies import answer_types
from studies.answer_types import normalize_key
from studies.answers import KeyFormatError, normalize_line_breaks
from studies.images import ImageRejected, validate_image
from studies.manipulations import slugify_manipulation
from studies.models import Chart, ChartSet, ManipulationType, Question
from studies.services import unique_slug
from studies.services.library.pairs import (
    RESERVED_SLUGS,
    SCORING_FIELDS,
    chartset_insert,
    image_files_discard,
    image_files_discard_on_commit,
    image_files_store,
    scoring_change_refusal,
    slug_problem,
    studies_with_live_answers,
)


def chartset_create(
    *,
    owner: User,
    title: str,
    slug: str = "",
    description: str = "",
    source: str = ChartSet.Source.MANUAL,
) -> ChartSet:
    title = (title or "").strip()
    if not title_has_words(title):
        raise ValidationError({"title": "Give the chart set a title with some letters or digits."})
    slug = (slug or "").strip()
    if slug:
        if slug_problem(slug):
            raise ValidationError({"slug": slug_problem(slug)})
        if ChartSet.objects.filter(slug=slug).exists():
            raise ValidationError({"slug": f"The slug “{slug}” is taken; choose another."})
    else:
        slug = unique_slug(ChartSet, title)
        if slug in RESERVED_SLUGS:
            slug = unique_slug(ChartSet, f"{title} set")
    return chartset_insert(
        owner=owner, title=title[:200], slug=slug, description=description, source=source
    )


def chartset_update(
    *, chart_set: ChartSet, title: str | None = None, description: str | None = None
) -> ChartSet:
    fields = []
    if title is not None:
        title = title.strip()
        if not title_has_words(title):
            raise ValidationError(
                {"title": "Give the chart set a title with some letters or digits."}
            )
        chart_set.title = title[:200]
        fields.append("title")
    if description is not None:
        chart_set.description = description
        fields.append("description")
    if fields:
        chart_set.save(update_fields=[*fields, "updated_at"])
    return chart_set


_SET_IN_USE = "This chart set is used by a study; remove its pairs from the study first."


def chartset_delete_problem(*, chart_set: ChartSet, user: User) -> str | None:
    """Why ``user`` cannot delete this chart set, or None when they can."""
    if chart_set.owner_id != user.pk:
        return "Only the owner of a chart set can delete it."
    if delete_protected(chart_set):
        return _SET_IN_USE
    return None


@transaction.atomic
def chartset_delete(*, chart_set: ChartSet, user: User) -> None:
    problem = chartset_delete_problem(chart_set=chart_set, user=user)
    if problem:
        raise ValidationError(problem)
    names = set(Chart.objects.filter(question__chart_set=chart_set).values_list("image", flat=True))
    try:
        chart_set.delete()
    except ProtectedError:
        raise ValidationError(_SET_IN_USE) from None
    image_files_discard_on_commit(names)
    audit_record(
        actor=user, action="library.chartset_delete", subject=f"studies.chartset:{chart_set.slug}"
    )


def pair_delete_problem(*, question: Question) -> str | None:
    """Why this pair cannot be deleted (a study uses it), or None when it can."""
    if delete_protected(question):
        return _pair_in_use(question.code)
    return None


def _pair_in_use(code: str) -> str:
    return f"{code} is used by a study; remove it from the study first."


@transaction.atomic
def pair_delete(*, question: Question, user: User) -> None:
    names = {c.image.name for c in question.charts.all()}
    group = question.group
    code = question.code
    try:
        question.delete()
    except ProtectedError:
        raise ValidationError(_pair_in_use(code)) from None
    if not group.questions.exists():
        group.delete()
    image_files_discard_on_commit(names)
    audit_record(actor=user, action="library.pair_delete", subject=f"studies.question:{code}")


def question_validate(
    *, text: str, answer_type: str, answer_key: str, tolerance: float | None = None
) -> dict:
    """The question's stored fields for a text, type and key, or ValidationError per field."""
    errors: dict[str, str] = {}
    text = "\n".join(
        line.rstrip() for line in normalize_line_breaks(text or "").strip().split("\n")
    )
    answer_key = " ".join(str(answer_key or "").split())
    if not text:
        errors["text"] = "Write the FACT question."
    if answer_type not in answer_types.KEYS:
        names = ", ".join(t.label.lower() for t in answer_types.all_types())
        errors["answer_type"] = f"Unknown answer type “{answer_type}”; choose one of: {names}."
    if not answer_key:
        errors["answer_key"] = "Write the answer key."
    if tolerance is not None and not 0 <= tolerance < 1:
        errors["tolerance"] = (
            "The tolerance is a fraction of the key from 0 to 0.99, e.g. 0.1 for ±10%."
        )
    if errors:
        raise ValidationError(errors)

    kind = answer_types.get_type(answer_type)
    try:
        options = kind.authored_options(text)
    except ValueError as exc:
        raise ValidationError({"text": str(exc)}) from None
    try:
        key_value = normalize_key(answer_type, answer_key, options=options)
        fields = kind.question_fields(text, key_value, options)
    except KeyFormatError as exc:
        raise ValidationError({"answer_key": exc.message}) from None
    return {
        "text": text,
        **fields,
        "answer_type": answer_type,
        "answer_key": answer_key,
        "key_value": key_value,
        **({"tolerance": tolerance} if tolerance is not None else {}),
    }


@transaction.atomic
def question_update(
    *,
    question: Question,
    user: User,
    text: str | None = None,
    answer_type: str | None = None,
    answer_key: str | None = None,
    tolerance: float | None = None,
) -> Question:
    """Edit a pair's FACT question and key; the key is checked against its type and options."""
    fields = question_validate(
        text=question.text if text is None else text,
        answer_type=question.answer_type if answer_type is None else answer_type,
        answer_key=question.answer_key if answer_key is None else answer_key,
        tolerance=tolerance,
    )
    before = {k: getattr(question, k) for k in fields}
    dirty = [k for k, v in fields.items() if getattr(question, k) != v]
    if not dirty:
        return question
    if set(dirty) & set(SCORING_FIELDS):
        answered = studies_with_live_answers([question.pk]).get(question.pk)
        if answered:
            raise ValidationError({"answer_key": scoring_change_refusal(question.code, answered)})
    for k in dirty:
        setattr(question, k, fields[k])
    question.save(update_fields=[*dirty, "updated_at"])
    # Keys are ground truth for every score computed later, so each change is on record.
    audit_record(
        actor=user,
        action="library.question_edit",
        subject=f"studies.question:{question.pk}",
        details={
            "code": question.code,
            "before": {k: before[k] for k in dirty},
            "after": {k: fields[k] for k in dirty},
        },
    )
    return question


def chart_image_replace(*, chart: Chart, data: bytes, user: User, filename: str = "") -> Chart:
    """Replace a chart's image with an uploaded one (validated, stored under its content hash)."""
    try:
        image = validate_image(
            data,
            max_bytes=settings.CHARTROOM_MAX_IMAGE_BYTES,
            max_pixels=settings.CHARTROOM_MAX_IMAGE_PIXELS,
        )
    except ImageRejected as exc:
        raise ValidationError({"image": exc.message}) from None
    names, created = image_files_store([image])
    name = names[id(image)]
    old = chart.image.name
    try:
        with transaction.atomic():
            chart.image.name = name
            chart.image_sha256 = name.rsplit("/", 1)[-1].split(".", 1)[0]
            chart.width, chart.height = image.width, image.height
            chart.original_name = filename.replace("\\", "/").rsplit("/", 1)[-1][:255]
            chart.save(update_fields=["image", "image_sha256", "width", "height", "original_name"])
            audit_record(
                actor=user,
                action="library.chart_image_replace",
                subject=f"studies.chart:{chart.pk}",
                details={"chart_id": chart.chart_id, "before": old, "after": name},
            )
            if old != name:
                image_files_discard_on_commit({old})
    except Exception:
        image_files_discard(created)
        raise
    return chart


def manipulation_type_create(
    *, user: User, label: str, description: str = "", vocabulary: list[str] | None = None
) -> ManipulationType:
    label = " ".join((label or "").split())
    if not label:
        raise ValidationError({"label": "Name the manipulation, e.g. “Truncated x-axis”."})
    slug = slugify_manipulation(label)[:60]
    if slug == ManipulationType.NONE and not re.search(r"[A-Za-z0-9]", label):
        # "!!!" or "图表" has no Latin letter or digit to make the manipulation's slug of.
        raise ValidationError(
            {"label": "Use some Latin letters or digits in the name, e.g. “Truncated x-axis”."}
        )
    if slug == ManipulationType.NONE or ManipulationType.objects.filter(slug=slug).exists():
        existing = ManipulationType.objects.filter(slug=slug).first()
        raise ValidationError(
            {
                "label": f"This manipulation exists already as “{existing.label if existing else 'None'}”."
            }
        )
    words = [" ".join(str(w).split()) for w in (vocabulary or [])]
    return ManipulationType.objects.create(
        slug=slug,
        label=label[:100],
        description=description or "",
        vocabulary=[w for w in words if w],
        created_by=user,
    )
