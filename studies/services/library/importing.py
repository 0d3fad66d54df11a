"""Importing a benchmark (CHARTOM layout or a manifest) into a chart set, whole or not at all.

The reading and checking of files is ``studies.benchmark_format``; this module adds the rules
that need the whole pair (both versions share one FACT question and key, a group has one chart
type and one manipulation), maps manipulation names onto the platform's slugs and stores the
pairs through ``pairs_write``.

Small uploads are imported in the request; larger ones (over
``CHARTROOM_IMPORT_SYNC_MAX_BYTES``, default 25 MB) are saved privately and imported by a
background job whose result lists the problems or the summary.
"""

from __future__ import annotations

import io
import time
import uuid
import zipfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils.text import slugify

from analysis.tables import natural_key
from core.models import Job, User
from core.services.jobs import job_create
from core.storage import private_storage
from studies.answer_types import get_type
from studies.benchmark_format import (
    IMAGES_DIR,
    KEYS_FILE,
    MANIPULATIONS_FILE,
    QUESTIONS_DIR,
    ChartRecord,
    Problem,
    read_benchmark,
)
from studies.manipulations import BY_SLUG, slugify_manipulation
from studies.models import PAIR_VERSIONS, ChartSet, chart_alt_text
from studies.services.library.pairs import (
    ChartInput,
    PairInput,
    chartset_insert,
    pairs_write,
    scoring_changes_refused,
    slug_problem,
)

IMPORT_JOB = "studies.library_import"


class ImportRejected(Exception):
    """The benchmark has problems; nothing was imported. ``problems`` lists them all."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__(f"{len(self.problems)} problem(s); nothing was imported.")

    def as_errors(self) -> dict[str, list[str]]:
        """Problems grouped by file, each message prefixed with its row: the API's error shape."""
        errors: dict[str, list[str]] = defaultdict(list)
        for p in self.problems:
            errors[p.file or "upload"].append(
                f"row {p.row}: {p.message}" if p.row is not None else p.message
            )
        return dict(errors)

    def as_list(self) -> list[dict]:
        return [{"file": p.file, "row": p.row, "message": p.message} for p in self.problems]


@dataclass
class ImportResult:
    chart_set: ChartSet
    created_set: bool
    pairs: int
    charts: int
    seconds: float
    summary: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "chart_set": self.chart_set.slug,
            "title": self.chart_set.title,
            "created_set": self.created_set,
            "pairs": self.pairs,
            "charts": self.charts,
            "seconds": round(self.seconds, 3),
            **self.summary,
        }


# ------------------------------------------------------------------------ records -> pairs


def manipulation_for(record: ChartRecord) -> tuple[str, str]:
    """The platform's slug and label for a record's manipulation.

    The reader spells slugs its own way ("3d_effect_bar", "logarithmic_y_axis"); its label
    ("3D effect (bar)") is what ``slugify_manipulation`` knows, so that is tried first.
    """
    for name in (record.manipulation_label, record.manipulation.replace("_", " ")):
        slug = slugify_manipulation(name or "")
        if slug in BY_SLUG:
            return slug, BY_SLUG[slug].label
    slug = slugify_manipulation(record.manipulation_label or record.manipulation)
    # The name is not cut: the reader refused any longer than a name can be stored
    # (studies/benchmark_format/reader.py, MAX_MANIPULATION_NAME).
    return slug[:60], record.manipulation_label or slug


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def _same_key(a: ChartRecord, b: ChartRecord) -> bool:
    return get_type(a.answer_type).same_key(a.answer_value, b.answer_value)


def pairs_from_records(
    records: list[ChartRecord], *, keys_file: str, layout_file: str
) -> tuple[list[PairInput], list[Problem]]:
    """Group records into pairs and check what both versions must share."""
    problems: list[Problem] = []
    by_question: dict[str, dict[int, ChartRecord]] = defaultdict(dict)
    for record in records:
        by_question[record.question_id][record.version] = record

    pairs: list[PairInput] = []
    for code in sorted(by_question, key=natural_key):
        versions = by_question[code]
        if set(versions) != PAIR_VERSIONS:
            continue  # the reader reported the missing partner or the partner's own problem
        one, two = versions[1], versions[2]
        problem = _pair_mismatch(one, two, keys_file=keys_file, layout_file=layout_file)
        if problem is not None:
            problems.append(problem)
            continue
        pairs.append(_pair_input(code, one, two))
    problems.extend(_group_problems(pairs, layout_file or MANIPULATIONS_FILE))
    return pairs, problems


def _pair_mismatch(
    one: ChartRecord, two: ChartRecord, *, keys_file: str, layout_file: str
) -> Problem | None:
    """The first thing the two versions of a pair should share but do not, if any."""
    if one.answer_type != two.answer_type:
        return Problem(
            keys_file,
            None,
            f"{one.chart_id} is {one.answer_type.replace('_', ' ')} but {two.chart_id} is "
            f"{two.answer_type.replace('_', ' ')}; both versions of a pair share one FACT "
            "question, so give them the same answer type.",
        )
    if not _same_key(one, two):
        return Problem(
            keys_file,
            None,
            f"{one.chart_id} has the key {one.answer_key!r} but {two.chart_id} has "
            f"{two.answer_key!r}; the data is the same in both versions, so the FACT "
            "answer must be too.",
        )
    if not _same_text(one.question_text, two.question_text):
        return Problem(
            layout_file or f"{QUESTIONS_DIR}/{two.chart_id}.txt",
            None,
            f"The questions of {one.chart_id} and {two.chart_id} differ; both versions of a "
            "pair are asked the same FACT question, so make the texts the same.",
        )
    if one.chart_type != two.chart_type:
        return Problem(
            layout_file or MANIPULATIONS_FILE,
            None,
            f"{one.chart_id} is a {one.chart_type} chart but {two.chart_id} a "
            f"{two.chart_type} chart; both versions of a pair show the same chart type.",
        )
    return None


def _pair_input(code: str, one: ChartRecord, two: ChartRecord) -> PairInput:
    """The pair to write: the question from the plain version, the manipulation from the other."""
    slug, label = manipulation_for(two)
    options = get_type(one.answer_type).imported_options(one.options, one.answer_value)
    return PairInput(
        group=two.group,
        code=code,
        chart_type=two.chart_type,
        manipulation=slug,
        manipulation_label=label,
        text=one.question_text,
        stem=one.question,
        answer_type=one.answer_type,
        options=options,
        answer_key=one.answer_key,
        key_value=one.answer_value,
        charts=[
            ChartInput(
                version=r.version,
                image=r.image,
                original_name=f"{r.chart_id}.{r.image.extension}",
                alt_text=chart_alt_text(two.chart_type),
            )
            for r in (one, two)
        ],
    )


def _group_problems(pairs: list[PairInput], file: str) -> list[Problem]:
    settings_by_group: dict[str, dict[tuple[str, str], list[str]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for pair in pairs:
        settings_by_group[pair.group][(pair.chart_type, pair.manipulation)].append(pair.code)
    problems = []
    for group in sorted(settings_by_group, key=natural_key):
        variants = settings_by_group[group]
        if len(variants) > 1:
            listed = "; ".join(
                f"{chart_type} / {manipulation.replace('_', ' ')}: {', '.join(codes)}"
                for (chart_type, manipulation), codes in sorted(variants.items())
            )
            problems.append(
                Problem(
                    file,
                    None,
                    f"Group {group} mixes chart types or manipulations ({listed}); a group has one "
                    "chart type and one manipulation, so give the others their own group id.",
                )
            )
    return problems


# ------------------------------------------------------------------------------ importing


def _limits() -> dict:
    return {
        "max_image_bytes": settings.CHARTROOM_MAX_IMAGE_BYTES,
        "max_image_pixels": settings.CHARTROOM_MAX_IMAGE_PIXELS,
    }


def _entry_names(source) -> list[str]:
    if isinstance(source, str | Path):
        path = Path(source)
        if path.is_dir():
            return [p.name for p in path.iterdir()]
        if path.suffix.lower() in (".csv", ".json"):
            return [path.name]
    try:
        if hasattr(source, "read"):
            position = source.tell()
            try:
                with zipfile.ZipFile(source) as zf:
                    return zf.namelist()
            finally:
                source.seek(position)
        with zipfile.ZipFile(source) as zf:
            return zf.namelist()
    except (OSError, zipfile.BadZipFile):
        return []


def _layout_files(source) -> tuple[str, str]:
    """(answer-key file, chart-type file) to name in problems about whole pairs and groups."""
    names = _entry_names(source)
    manifest = next(
        (n for n in names if PurePosixPath(n).name.lower() in ("manifest.csv", "manifest.json")),
        None,
    )
    if manifest and not any(PurePosixPath(n).name.lower() == KEYS_FILE.lower() for n in names):
        return manifest, manifest
    return KEYS_FILE, ""


def target_set_resolve(
    *, owner: User, slug: str | None, title: str | None, source_name: str, new: bool = False
) -> tuple[ChartSet | None, str, str]:
    """The set an import updates (None: a new one) with the slug and title to use.

    ``new``: the researcher asked for a new set, so a slug (given, or made from the title or
    the file name) that names an existing set is refused rather than updated in place.
    """
    title = (title or "").strip()
    stem = (
        PurePosixPath(source_name.replace("\\", "/")).name.rsplit(".", 1)[0] if source_name else ""
    )
    slug = (slug or "").strip() or slugify(title or stem)[:80]
    if not slug:
        raise ValidationError({"slug": "Give the chart set a slug (letters, digits and dashes)."})
    if slug_problem(slug):
        raise ValidationError({"slug": slug_problem(slug)})
    existing = ChartSet.objects.filter(slug=slug).first()
    if existing is not None and new:
        raise ValidationError(
            {
                "slug": f"A chart set with the slug “{slug}” exists already. To update it, choose "
                "it under “Import into”; for a new set, give another title or slug."
            }
        )
    if existing is not None and not ChartSet.objects.visible_to(owner).filter(pk=existing.pk):
        raise ValidationError(
            {
                "slug": f"The slug “{slug}” is taken by another researcher's chart set; choose another."
            }
        )
    return existing, slug, title or (existing.title if existing else stem or slug)


def chartset_import(
    *,
    owner: User,
    source,
    slug: str | None = None,
    title: str | None = None,
    prune: bool = False,
    source_name: str = "",
    new: bool = False,
) -> ImportResult:
    """Import a benchmark folder, .zip (path or binary file) or manifest into a chart set.

    Re-importing into the same slug updates the set in place: pairs are matched by question
    id, unchanged ones stay untouched, and with ``prune`` pairs missing from the upload are
    removed. Raises :class:`ImportRejected` with every problem (nothing changed) or
    ``ValidationError`` for a bad slug.
    """
    started = time.perf_counter()
    source_name = source_name or str(getattr(source, "name", "") or source)
    existing, slug, title = target_set_resolve(
        owner=owner, slug=slug, title=title, source_name=source_name, new=new
    )
    keys_file, layout_file = _layout_files(source)
    benchmark = read_benchmark(source, **_limits())
    problems = list(benchmark.problems)
    pairs, pair_problems = pairs_from_records(
        benchmark.charts, keys_file=keys_file, layout_file=layout_file
    )
    problems.extend(pair_problems)
    if not problems and not pairs:
        problems.append(Problem(source_name, None, "The benchmark holds no chart pairs."))
    if not problems and existing is not None:
        name = PurePosixPath(source_name).name or "upload"
        problems = [Problem(name, None, m) for m in scoring_changes_refused(existing, pairs)]
    if problems:
        raise ImportRejected(problems)

    with transaction.atomic():
        if existing is None:
            chart_set = chartset_insert(
                owner=owner,
                slug=slug,
                title=title[:200],
                source=ChartSet.Source.IMPORTED,
                source_name=PurePosixPath(source_name).name[:255],
            )
        else:
            chart_set = ChartSet.objects.select_for_update().get(pk=existing.pk)
            chart_set.title = title[:200]
            chart_set.source_name = PurePosixPath(source_name).name[:255]
            chart_set.save(update_fields=["title", "source_name", "updated_at"])
        summary = pairs_write(chart_set=chart_set, pairs=pairs, user=owner, prune=prune)
    return ImportResult(
        chart_set=chart_set,
        created_set=existing is None,
        pairs=len(pairs),
        charts=2 * len(pairs),
        seconds=time.perf_counter() - started,
        summary=summary.as_dict(),
    )


def chartset_import_enqueue(
    *,
    owner: User,
    data: bytes,
    source_name: str,
    slug: str | None,
    title: str | None,
    prune: bool,
    new: bool = False,
) -> Job:
    """Save the upload privately and import it in a background job (result: see the job)."""
    existing, slug, title = target_set_resolve(
        owner=owner, slug=slug, title=title, source_name=source_name, new=new
    )
    stored = private_storage().save(f"imports/{uuid.uuid4().hex}.zip", ContentFile(data))
    return job_create(
        kind=IMPORT_JOB,
        params={
            "upload": stored,
            "source_name": source_name,
            "slug": slug,
            "title": title,
            "prune": bool(prune),
            "new": bool(new),
            "owner": owner.pk,
        },
        subject=f"studies.chartset:{existing.pk}"
        if existing
        else f"studies.chartset-import:{slug}",
        user=owner,
    )


def chartset_import_job_run(*, job: Job, report) -> dict:
    """The body of an import job: import the stored upload, then delete it."""
    params = job.params
    storage = private_storage()
    owner = User.objects.get(pk=params["owner"])
    report(0.1, "Reading the benchmark")
    try:
        with storage.open(params["upload"], "rb") as handle:
            data = handle.read()
        result = chartset_import(
            owner=owner,
            source=io.BytesIO(data),
            slug=params["slug"],
            title=params.get("title"),
            prune=params.get("prune", False),
            source_name=params.get("source_name", ""),
            new=params.get("new", False),
        )
    except ImportRejected as rejected:
        return {"ok": False, "problems": rejected.as_list()}
    except ValidationError as exc:
        messages = exc.message_dict if hasattr(exc, "error_dict") else {"upload": exc.messages}
        return {
            "ok": False,
            "problems": [
                {"file": key, "row": None, "message": m}
                for key, values in messages.items()
                for m in values
            ],
        }
    finally:
        storage.delete(params["upload"])
    return {"ok": True, **result.as_dict()}


__all__ = [
    "IMAGES_DIR",
    "IMPORT_JOB",
    "ImportRejected",
    "ImportResult",
    "chartset_import",
    "chartset_import_enqueue",
    "chartset_import_job_run",
    "pairs_from_records",
]
