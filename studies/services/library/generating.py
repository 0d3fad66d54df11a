"""Generating chart pairs from specs (``studies.chartgen``) and storing them in a chart set."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import transaction

from analysis.tables import natural_key
from core import json_input
from core.models import Job, User
from core.services.jobs import job_create
from studies.answer_types import get_type
from studies.answers import KeyFormatError
from studies.chartgen import ChartSpec, SpecError, load_specs, render_pair
from studies.images import ImageRejected, validate_image
from studies.manipulations import BY_SLUG, slugify_manipulation
from studies.models import ChartSet, Question, chart_alt_text
from studies.services.library.pairs import (
    ChartInput,
    PairInput,
    WriteSummary,
    chartset_insert,
    pairs_write,
)

GENERATE_JOB = "studies.library_generate"
# Rendering takes a fraction of a second per pair; more than this many go to a background job.
SYNC_MAX_SPECS = 20


def specs_parse(raw: Any) -> list[ChartSpec]:
    """Specs from JSON text, one spec object or a list of them.

    Raises ``ValidationError({"spec": [...]})`` with every problem, each naming its spec and field.
    """
    if isinstance(raw, str | bytes):
        try:
            raw = json_input.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValidationError(
                {
                    "spec": f"The spec is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})."
                }
            ) from None
    if isinstance(raw, dict):
        raw = [raw]
    try:
        specs = load_specs(raw)
    except SpecError as exc:
        raise ValidationError({"spec": exc.messages}) from None
    if not specs:
        raise ValidationError({"spec": "Give at least one chart spec."})
    plain = [s.id for s in specs if not s.has_pair]
    if plain:
        raise ValidationError(
            {
                "spec": (
                    f"{', '.join(plain)}: the manipulation is “none”, which draws a single chart; a "
                    "pair needs one of the manipulations, e.g. truncated_y_axis."
                )
            }
        )
    _check_groups(specs)
    return specs


def _check_groups(specs: Sequence[ChartSpec]) -> None:
    seen: dict[str, tuple[str, str, str]] = {}
    problems = []
    for spec in specs:
        first = seen.setdefault(spec.group, (spec.chart_type, spec.manipulation, spec.id))
        if first[:2] != (spec.chart_type, spec.manipulation):
            problems.append(
                f"{spec.id}: group {spec.group} already holds {first[0]} / {first[1]} charts "
                f"({first[2]}); a group has one chart type and one manipulation."
            )
    if problems:
        raise ValidationError({"spec": problems})


@dataclass
class Preview:
    spec: ChartSpec
    non_manipulated: bytes
    manipulated: bytes


def pair_preview(*, spec: ChartSpec) -> Preview:
    """Render both versions without storing anything."""
    png1, png2 = render_pair(spec)
    return Preview(spec=spec, non_manipulated=png1, manipulated=png2)


def question_parts(spec: ChartSpec) -> tuple[str, str, list[str], str, Any]:
    """(text as shown, stem, options, key as written, key in its checked form)."""
    return get_type(spec.answer_type).spec_question_parts(spec)


def pair_input_from_spec(spec: ChartSpec, png1: bytes, png2: bytes) -> PairInput:
    try:
        text, stem, options, key, key_value = question_parts(spec)
        images = [validate_image(png) for png in (png1, png2)]
    except (KeyFormatError, ImageRejected) as exc:  # a generator bug, not the researcher's input
        raise ValidationError({"spec": f"{spec.id}: {exc.message}"}) from None
    slug = slugify_manipulation(spec.manipulation)
    label = BY_SLUG[slug].label if slug in BY_SLUG else spec.manipulation_label
    return PairInput(
        group=spec.group,
        code=spec.id,
        chart_type=spec.chart_type,
        manipulation=slug,
        manipulation_label=label,
        text=text,
        stem=stem,
        answer_type=spec.answer_type,
        options=options,
        answer_key=key,
        key_value=key_value,
        charts=[
            ChartInput(
                version=version,
                image=image,
                original_name=f"{spec.chart_id(version == 2)}.png",
                alt_text=chart_alt_text(spec.chart_type, spec.title),
            )
            for version, image in ((1, images[0]), (2, images[1]))
        ],
        spec=spec.to_dict(),
    )


def pair_generate_save(
    *, chart_set: ChartSet, spec: ChartSpec, user: User
) -> tuple[Question, bool]:
    """Render a spec and store its pair in ``chart_set``; returns (question, created)."""
    preview = pair_preview(spec=spec)
    pair = pair_input_from_spec(spec, preview.non_manipulated, preview.manipulated)
    summary = pairs_write(chart_set=chart_set, pairs=[pair], user=user, group_conflict="error")
    question = Question.objects.get(chart_set=chart_set, code=spec.id)
    return question, spec.id in summary.created


def _is_current(question: Question | None, spec: ChartSpec) -> bool:
    if question is None or question.spec != spec.to_dict():
        return False
    return question.has_both_charts and all(
        default_storage.exists(c.image.name) for c in question.charts.all()
    )


@dataclass
class GenerateResult:
    chart_set: ChartSet
    created_set: bool
    seconds: float
    summary: WriteSummary = field(default_factory=WriteSummary)

    def as_dict(self) -> dict:
        return {
            "chart_set": self.chart_set.slug,
            "created_set": self.created_set,
            "seconds": round(self.seconds, 3),
            **self.summary.as_dict(),
        }


def chartset_generate(
    *,
    chart_set: ChartSet,
    specs: Sequence[ChartSpec],
    user: User,
    report: Callable[[float, str], None] | None = None,
    group_conflict: str = "error",
) -> WriteSummary:
    """Render every spec and store the pairs in one write; pairs whose stored spec is the
    same (and whose images exist) are not rendered again."""
    _check_groups(specs)
    existing = {
        q.code: q
        for q in Question.objects.filter(
            chart_set=chart_set, code__in=[s.id for s in specs]
        ).prefetch_related("charts")
    }
    pairs, unchanged = [], []
    ordered = sorted(specs, key=lambda s: natural_key(s.id))
    for n, spec in enumerate(ordered, 1):
        if _is_current(existing.get(spec.id), spec):
            unchanged.append(spec.id)
            continue
        png1, png2 = render_pair(spec)
        pairs.append(pair_input_from_spec(spec, png1, png2))
        if report:
            report(0.9 * n / len(ordered), f"Rendered {spec.id}")
    summary = (
        pairs_write(chart_set=chart_set, pairs=pairs, user=user, group_conflict=group_conflict)
        if pairs
        else WriteSummary()
    )
    summary.unchanged = sorted([*summary.unchanged, *unchanged], key=natural_key)
    summary.kept = []
    return summary


def chartset_generate_new_or_update(
    *,
    owner: User,
    specs: Sequence[ChartSpec],
    slug: str,
    title: str = "",
    description: str = "",
    report: Callable[[float, str], None] | None = None,
) -> GenerateResult:
    """Generate into the set ``slug`` (created, owned by ``owner``, when it does not exist)."""
    from studies.services.library.importing import target_set_resolve

    started = time.perf_counter()
    existing, slug, title = target_set_resolve(owner=owner, slug=slug, title=title, source_name="")
    with transaction.atomic():
        if existing is None:
            chart_set = chartset_insert(
                owner=owner,
                slug=slug,
                title=title[:200],
                description=description,
                source=ChartSet.Source.GENERATED,
            )
        else:
            chart_set = existing
        summary = chartset_generate(
            chart_set=chart_set, specs=specs, user=owner, report=report, group_conflict="update"
        )
    return GenerateResult(
        chart_set=chart_set,
        created_set=existing is None,
        seconds=time.perf_counter() - started,
        summary=summary,
    )


def chartset_generate_enqueue(
    *, chart_set: ChartSet, specs: Sequence[ChartSpec], user: User
) -> Job:
    return job_create(
        kind=GENERATE_JOB,
        params={"chart_set": chart_set.pk, "specs": [s.to_dict() for s in specs]},
        subject=f"studies.chartset:{chart_set.pk}",
        user=user,
    )


def chartset_generate_job_run(*, job: Job, report) -> dict:
    chart_set = ChartSet.objects.get(pk=job.params["chart_set"])
    try:
        specs = specs_parse(job.params["specs"])
        summary = chartset_generate(
            chart_set=chart_set, specs=specs, user=job.created_by, report=report
        )
    except ValidationError as exc:
        messages = exc.message_dict if hasattr(exc, "error_dict") else {"spec": exc.messages}
        return {"ok": False, "errors": messages}
    return {"ok": True, "chart_set": chart_set.slug, **summary.as_dict()}
