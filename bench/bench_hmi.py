"""HMI and export benchmark: 10,000 participants x 112 charts (1.12 M responses) on PostgreSQL.

Creates a dedicated study (56 chart pairs with tiny images) in the database of
DATABASE_URL, fills it with simulated completed sessions by COPY (rows shaped
exactly as the participant flow writes them), then measures:

- HMI of every chart: the exclusion rules over every session plus one
  aggregating query (what the dashboard and the HMI export use), and the
  trial-level frame path the analysis job feeds to analysis.hmi;
- the floor: one raw SQL GROUP BY over the study's trials, and the HMI table as
  the results page builds it;
- exporting the responses in long form as CSV and as Parquet, streamed to a
  temporary file, each in a fresh process: seconds, and peak RSS next to the
  RSS after start-up (the fill would otherwise set the high-water mark);
  ``--traced`` adds a run under tracemalloc (peak Python memory; slow).

The study and its rows are removed afterwards unless --keep is given.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chartroom_bench \\
        .venv/bin/python bench/bench_hmi.py --participants 10000
"""

from __future__ import annotations

import argparse
import io
import os
import random
import secrets
import sys
import tempfile
import time
import tracemalloc
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SLUG = "bench-hmi-study"


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--participants", type=int, default=10_000)
    parser.add_argument(
        "--pairs", type=int, default=56, help="chart pairs (default 56: 112 charts)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark study afterwards")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="measure the study a --keep run left behind instead of filling a new one",
    )
    parser.add_argument("--skip-exports", action="store_true", help="measure HMI only")
    parser.add_argument(
        "--traced", action="store_true", help="also export once under tracemalloc (slow)"
    )
    return parser.parse_args(argv)


def setup_django():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def tiny_png(i: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (i % 255, 90, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


def make_study(pairs: int):
    from django.core.files.base import ContentFile

    from core.models import User
    from studies.models import (
        Chart,
        ChartGroup,
        ChartSet,
        ManipulationType,
        Question,
        Study,
        StudyPair,
    )

    owner, _ = User.objects.get_or_create(username="bench-hmi", defaults={"role": "researcher"})
    chart_set = ChartSet.objects.create(title="Bench HMI", slug=f"{SLUG}-set", owner=owner)
    none, _ = ManipulationType.objects.get_or_create(slug="none", defaults={"label": "None"})
    manipulation, _ = ManipulationType.objects.get_or_create(
        slug="bench-truncated", defaults={"label": "Truncated (bench)"}
    )
    study = Study.objects.create(
        title="Bench HMI", slug=SLUG, owner=owner, chart_set=chart_set, status="live",
        max_attention_failures=0, min_seconds_per_trial=1.0,
    )  # fmt: skip
    groups = 14
    for g in range(groups):
        group = ChartGroup.objects.create(
            chart_set=chart_set, code=f"G{g + 1}", chart_type="bar", manipulation=manipulation
        )
        for q in range(g, pairs, groups):
            question = Question.objects.create(
                chart_set=chart_set, group=group, code=f"G{g + 1}_Q{q // groups + 1}",
                text="Which year had more? 1. 2018 2. 2019", answer_type="multiple_choice",
                options=["2018", "2019"], answer_key="2", key_value=1,
            )  # fmt: skip
            StudyPair.objects.create(study=study, question=question, position=q)
            for version in (1, 2):
                chart = Chart(
                    question=question, version=version, width=4, height=4,
                    chart_id=f"{question.code}_{version}",
                    manipulation=manipulation if version == 2 else none,
                )  # fmt: skip
                chart.image.save(f"bench-{q}-{version}.png", ContentFile(tiny_png(q)), save=False)
                chart.width, chart.height = 4, 4
                chart.save()
    return study


def _next_ids(cursor, table: str, count: int) -> int:
    cursor.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {table}")
    start = cursor.fetchone()[0]
    cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), %s)", [start + count])
    return start


def fill(study, participants: int, seed: int) -> int:
    """COPY completed sessions, their trials and responses: the rows the participant flow writes."""
    from django.db import connection, transaction
    from django.utils import timezone
    from psycopg.types.json import Jsonb

    from studies.models import Chart

    rng = random.Random(seed)
    charts = list(Chart.objects.filter(question__study_pairs__study=study).values_list(
        "id", "question_id", "version", "question__group__code"
    ))  # fmt: skip
    # Error rate by group and version, as in the CHARTOM table: manipulation raises it.
    rate = {}
    for cid, _q, version, group in charts:
        g = int(group[1:])
        rate[cid] = 0.05 + 0.02 * g + (0.25 + 0.02 * g if version == 2 else 0.0)
    n_trials = len(charts)
    now = timezone.now()
    with transaction.atomic(), connection.cursor() as cur:
        raw = cur.cursor if hasattr(cur, "cursor") else cur
        session_start = _next_ids(raw, "studies_participantsession", participants)
        trial_start = _next_ids(raw, "studies_trial", participants * n_trials)
        response_start = _next_ids(raw, "studies_response", participants * n_trials)
        session_cols = (
            "id, study_id, token, number, is_pilot, is_preview, status, platform, external_id, "
            'platform_params, order_seed, "order", trial_count, current_position, '
            "attention_failures, answers_deleted, created_at, consented_at, "
            "instructions_done_at, deadline, completed_at, ended_at, debriefed_at, user_agent, "
            "language"
        )
        with raw.copy(f"COPY studies_participantsession ({session_cols}) FROM STDIN") as copy:
            for i in range(participants):
                start = now - timedelta(hours=3, seconds=i)
                copy.write_row((
                    session_start + i, study.pk, secrets.token_urlsafe(32), i + 1, False, False,
                    "completed", "prolific", f"BENCH{i:06d}", Jsonb({}), seed + i, Jsonb([]),
                    n_trials, n_trials, 1 if rng.random() < 0.05 else 0, False, start, start,
                    start, start + timedelta(hours=1), start + timedelta(minutes=20), None, None,
                    "bench", study.language,
                ))  # fmt: skip
        trial_cols = "id, session_id, position, kind, chart_id, question_id, item_order, shown_at"
        response_cols = (
            "id, trial_id, session_id, position, chart_id, raw_answer, value, correct, "
            "shown_at, answered_at, server_ms, client_ms, idempotency_key"
        )

        def orders():
            # Regenerated per participant for the two COPYs, so nothing big is held in memory.
            for i in range(participants):
                order = list(range(n_trials))
                random.Random(seed * 1_000_003 + i).shuffle(order)
                yield i, now - timedelta(hours=3, seconds=i), order

        with raw.copy(f"COPY studies_trial ({trial_cols}) FROM STDIN") as copy:
            for i, start, order in orders():
                base = trial_start + i * n_trials
                for position, index in enumerate(order):
                    cid, qid, _v, _g = charts[index]
                    copy.write_row((base + position, session_start + i, position, "chart", cid,
                                    qid, Jsonb([]), start + timedelta(seconds=10 * position)))  # fmt: skip
        # Responses after the trials: the one-to-one foreign key needs them there first.
        with raw.copy(f"COPY studies_response ({response_cols}) FROM STDIN") as copy:
            for i, start, order in orders():
                base = i * n_trials
                for position, index in enumerate(order):
                    cid = charts[index][0]
                    wrong = rng.random() < rate[cid]
                    ms = int(rng.lognormvariate(9.1, 0.4))
                    shown = start + timedelta(seconds=10 * position)
                    copy.write_row((
                        response_start + base + position, trial_start + base + position,
                        session_start + i, position, cid, "1" if wrong else "2",
                        Jsonb(0 if wrong else 1), not wrong, shown,
                        shown + timedelta(milliseconds=ms), ms, ms - 50, "",
                    ))  # fmt: skip
    return participants * n_trials


def measure(label, func, *, repeat: int = 1):
    """Seconds of ``func``: the best of ``repeat`` runs (the floor and HMI use 3, after a warm-up)."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - started)
    print(f"{label:<58} {best:8.2f} s")
    return result, best


def measure_memory(label, func):
    tracemalloc.start()
    started = time.perf_counter()
    result = func()
    seconds = time.perf_counter() - started
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{label:<58} {seconds:8.2f} s   peak Python memory {peak / 2**20:7.1f} MiB")
    return result, seconds, peak


def cleanup(study):
    from django.db import connection, transaction

    from studies.models import ChartSet

    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(
            "DELETE FROM studies_response WHERE session_id IN "
            "(SELECT id FROM studies_participantsession WHERE study_id = %s)",
            [study.pk],
        )
        cur.execute(
            "DELETE FROM studies_trial WHERE session_id IN "
            "(SELECT id FROM studies_participantsession WHERE study_id = %s)",
            [study.pk],
        )
        cur.execute("DELETE FROM studies_participantsession WHERE study_id = %s", [study.pk])
    chart_set = study.chart_set
    images = [c.image for q in chart_set.questions.all() for c in q.charts.all()]
    study.delete()
    for image in images:
        image.delete(save=False)
    ChartSet.objects.filter(pk=chart_set.pk).delete()


def main(argv=None) -> int:
    args = parse_args(argv)
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        print(
            "bench_hmi needs PostgreSQL: set DATABASE_URL=postgres://... (a database you can "
            "write to; the benchmark adds and then removes its own study).",
            file=sys.stderr,
        )
        return 2
    setup_django()
    from studies.models import Study

    stale = Study.objects.filter(slug=SLUG).first()
    if args.reuse and stale is not None:
        print(f"Reusing the kept study: {_response_count(stale)} responses\n")
        run(stale, exports=not args.skip_exports, traced=args.traced)
        if not args.keep:
            cleanup(stale)
        return 0
    if stale is not None:
        cleanup(stale)
    study = make_study(args.pairs)
    try:
        print(f"Filling {args.participants} participants x {2 * args.pairs} charts ...")
        started = time.perf_counter()
        rows = fill(study, args.participants, args.seed)
        from django.db import connection

        with connection.cursor() as cur:
            for table in ("studies_trial", "studies_response", "studies_participantsession"):
                cur.execute(f"ANALYZE {table}")
        print(f"  {rows} responses stored in {time.perf_counter() - started:.1f} s\n")
        run(study, exports=not args.skip_exports, traced=args.traced)
    finally:
        if not args.keep:
            cleanup(study)
    return 0


def _response_count(study) -> int:
    from studies.models import Response

    return Response.objects.filter(session__study=study).count()


def run(study, *, exports: bool = True, traced: bool = False):
    from analysis.hmi import chart_hmi, wilson_interval
    from studies.selectors.results import chart_error_counts, chart_trials_frame
    from studies.services.results.exclusion import study_exclusion

    def hmi_all():
        ids = study_exclusion(study).included_ids
        counts = chart_error_counts(study, ids)
        n = [v[0] for v in counts.values()]
        wrong = [v[1] for v in counts.values()]
        low, high = wilson_interval(wrong, n)
        return len(ids), len(counts), low, high

    def sql_floor():
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT t.chart_id, COUNT(*), COUNT(*) FILTER (WHERE r.correct) "
                "FROM studies_trial t JOIN studies_participantsession s ON s.id = t.session_id "
                "LEFT JOIN studies_response r ON r.trial_id = t.id "
                "WHERE s.study_id = %s AND t.kind = 'chart' GROUP BY t.chart_id",
                [study.pk],
            )
            return cursor.fetchall()

    # A warm-up run of each: a worker has loaded scipy and warmed PostgreSQL's cache long before.
    sql_floor()
    hmi_all()
    _rows, floor = measure(
        "SQL floor: one raw GROUP BY over the study's trials", sql_floor, repeat=3
    )
    (included, charts, _l, _h), hmi_seconds = measure(
        "HMI of every chart (exclusion + DB aggregate + Wilson)", hmi_all, repeat=3
    )
    print(
        f"  {included} included participants, {charts} charts; {hmi_seconds / floor:.1f}x the floor"
    )

    def hmi_table():
        from studies.selectors.results import chart_catalogue
        from studies.services.results.compute import chart_hmi_frame

        ids = study_exclusion(study).included_ids
        return chart_hmi_frame(chart_catalogue(study), chart_error_counts(study, ids))

    hmi_table()  # warm-up too: its first run imports pandas, which a worker has loaded long before
    measure("HMI table of the results page (exclusion + catalogue + counts)", hmi_table)
    if exports:
        # Before the trial-level frame below, whose 1.12 M rows would set the RSS high-water mark.
        export_figures(study, traced=traced)

    def hmi_frame():
        ids = study_exclusion(study).included_ids
        frame = chart_trials_frame(study, ids)
        frame = frame.rename(columns={"chart_pk": "chart_id"})
        return chart_hmi(frame)

    measure("HMI via the trial-level frame (analysis job path)", hmi_frame)
    verdict = "met" if hmi_seconds < 3 * floor else "NOT met"
    print(f"Target HMI within 3x the SQL floor: {verdict} ({hmi_seconds / floor:.1f}x)")


def _vm_kib(field: str) -> int:
    """VmRSS (now) or VmHWM (peak) of this process from /proc, in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _export_in_child(study_pk: int, slug: str, path: str, queue) -> None:
    """One export in a fresh process, so its peak RSS is the export's own and not the fill's."""
    import django

    django.setup()
    if "parquet" in slug:
        import pyarrow.parquet  # noqa: F401  (imports are not the export's cost)

    from studies.models import Study
    from studies.services.exports import export_write

    study = Study.objects.get(pk=study_pk)
    baseline = _vm_kib("VmRSS")
    started = time.perf_counter()
    with open(path, "wb") as handle:
        export_write(study=study, slug=slug, out=handle)
    seconds = time.perf_counter() - started
    queue.put((seconds, baseline / 1024, _vm_kib("VmHWM") / 1024))


def export_figures(study, *, traced: bool = False):
    import multiprocessing

    from django.db import connections

    from studies.services.exports import export_write

    connections.close_all()
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as folder:
        for slug in ("responses-csv", "responses-parquet"):
            path = Path(folder) / slug
            queue = context.Queue()
            child = context.Process(
                target=_export_in_child, args=(study.pk, slug, str(path), queue)
            )
            child.start()
            seconds, baseline, peak = queue.get(timeout=1800)
            child.join()
            print(f"{'Export ' + slug + ' (streamed to a file, own process)':<58} {seconds:8.2f} s")
            print(
                f"  {path.stat().st_size / 2**20:.0f} MiB written; peak RSS {peak:.0f} MiB "
                f"({baseline:.0f} MiB after start-up, {peak - baseline:.0f} MiB for the export); "
                f"target < 150 MiB: {'met' if peak < 150 else 'NOT met'}"
            )
        if not traced:
            return
        # tracemalloc slows Python several times over, so memory is measured in a separate run.
        path = Path(folder) / "traced.csv"

        def traced_export(path=path):
            with open(path, "wb") as handle:
                export_write(study=study, slug="responses-csv", out=handle)

        measure_memory("Export responses-csv again under tracemalloc", traced_export)


if __name__ == "__main__":
    sys.exit(main())
