"""Scale benchmark of the agreement report on PostgreSQL.

Creates a dedicated project of N sentences (default 100,000, four per caption), each
labelled by k annotators (default 3) with the seven default categories, writing
items, assignments and label sets with COPY. Then, in a fresh process, computes the
project's report (agreement for the factual decision and each category, pairwise
kappa, agreement with the majority, majority-vote aggregation, dataset tables and
the Figure 1 SVG) and stores it as the report job does. Prints seconds and peak
memory, then deletes the project and its annotators again.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chartroom python bench/bench_agreement.py
    python bench/bench_agreement.py --sentences 20000        # a quicker run
    python bench/bench_agreement.py --pool 30                # 3 per item out of 30 annotators

Target (issue 21): under 2 s and a peak RSS under 300 MB for 100,000 sentences x 7
categories x 3 annotators.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import secrets
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

CATEGORY_RATES = {
    "value_error": 0.18,
    "label_error": 0.14,
    "trend_error": 0.07,
    "magnitude_error": 0.03,
    "ooc_error": 0.10,
    "grammatical_error": 0.04,
    "nonsense_error": 0.05,
}
MODELS = ["gpt4v", "bard", "deplot", "chartt5", "matcha", "unichart"]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=100_000, help="sentences (100000)")
    parser.add_argument("--per-item", type=int, default=4, help="sentences per caption (4)")
    parser.add_argument("--k", type=int, default=3, help="annotators per item (3)")
    parser.add_argument(
        "--pool", type=int, default=3, help="annotators in the project, k of them per item (3)"
    )
    parser.add_argument(
        "--flip", type=float, default=0.08, help="chance an annotator disagrees (0.08)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the project afterwards")
    return parser.parse_args()


def _copy(cursor, table: str, columns: list[str], rows) -> None:
    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _project_with_annotators(args, tag: str):
    """A fresh project and ``args.pool`` annotators who joined it; returns (project, user ids)."""
    from annotation.services import project_create, project_join
    from core.models import User

    owner = User.objects.create_user(username=f"bench-agreement-{tag}", role=User.Role.RESEARCHER)
    project = project_create(
        owner=owner,
        title="Agreement benchmark",
        slug=f"bench-agreement-{tag}",
        annotators_per_item=args.k,
    )
    annotators = []
    for n in range(args.pool):
        user = User.objects.create_user(
            username=f"bench-agreement-{tag}-a{n}", role=User.Role.ANNOTATOR
        )
        project_join(project=project, annotator=user)
        annotators.append(user.pk)
    return project, annotators


def _copy_items(raw, project, args, n_items: int, now) -> list[int]:
    """COPY the items in; returns their ids in position order."""
    from annotation.models import Item

    sentences = json.dumps([f"Sentence {s} of the caption." for s in range(args.per_item)])
    _copy(
        raw,
        Item._meta.db_table,
        ["project_id", "external_id", "sentences", "image", "image_url", "model",
         "dataset", "split", "position", "filled_count", "submitted_count", "created_at",
         "disputed"],
        (
            (project.pk, f"bench-{n}", sentences, "", f"https://charts.example.org/{n}.png",
             MODELS[n % 6], "pew" if n % 2 else "vistext",
             "LVLM" if n % 6 < 2 else ("LLM" if n % 6 == 2 else "FT"),
             n, args.k, args.k, now, False)
            for n in range(n_items)
        ),
    )  # fmt: skip
    return [
        pk for (pk,) in Item.objects.filter(project=project).order_by("position").values_list("pk")
    ]


def _copy_assignments(raw, project, args, item_ids, annotators, holders, now) -> dict:
    """COPY one submitted assignment per (item, slot); returns their ids by (item, annotator)."""
    from annotation.models import Assignment

    assignment_rows = []
    for n, item_id in enumerate(item_ids):
        for slot in range(args.k):
            annotator = annotators[holders[n, slot]]
            assignment_rows.append((project.pk, item_id, annotator, slot))
    _copy(
        raw,
        Assignment._meta.db_table,
        ["project_id", "item_id", "annotator_id", "state", "slot", "leased_at",
         "expires_at", "finished_at", "active_seconds", "skip_reason"],
        (
            (p, i, a, "submitted", s, now, now, now, 60.0, "")
            for p, i, a, s in assignment_rows
        ),
    )  # fmt: skip
    return {
        (item, annotator): pk
        for pk, item, annotator in Assignment.objects.filter(project=project).values_list(
            "pk", "item_id", "annotator_id"
        )
    }


def _copy_label_sets(raw, project, args, item_ids, annotators, holders, marks_of, now) -> None:
    """COPY each assignment's label set; ``marks_of(n, slot)`` gives its sentence x category marks."""
    import numpy as np

    from annotation.models import LabelSet

    keys = list(CATEGORY_RATES)
    assignment_ids = _copy_assignments(raw, project, args, item_ids, annotators, holders, now)

    def label_rows():
        for n, item_id in enumerate(item_ids):
            for slot in range(args.k):
                labels = [[keys[j] for j in np.flatnonzero(row)] for row in marks_of(n, slot)]
                annotator = annotators[holders[n, slot]]
                yield (
                    assignment_ids[(item_id, annotator)],
                    project.pk,
                    item_id,
                    annotator,
                    json.dumps(labels),
                    60.0,
                    now,
                )

    _copy(
        raw,
        LabelSet._meta.db_table,
        ["assignment_id", "project_id", "item_id", "annotator_id", "labels",
         "active_seconds", "submitted_at"],
        label_rows(),
    )  # fmt: skip


def seed(args) -> tuple[int, float]:
    """Create the project and its labels; returns (project id, seconds)."""
    import numpy as np
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.utils import timezone

    started = time.monotonic()
    call_command("migrate", verbosity=0)
    project, annotators = _project_with_annotators(args, secrets.token_hex(3))

    rng = np.random.default_rng(8)
    n_items = args.sentences // args.per_item
    rates = np.array(list(CATEGORY_RATES.values()))
    now = timezone.now()
    with transaction.atomic(), connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg's own cursor, for COPY
        item_ids = _copy_items(raw, project, args, n_items, now)
        # The draws keep their order (truth, holders, flips) so a run is the same as before.
        truth = rng.random((n_items, args.per_item, len(rates))) < rates
        holders = np.array(
            [rng.choice(args.pool, size=args.k, replace=False) for _ in range(n_items)]
        )
        flips = rng.random((n_items, args.k, args.per_item, len(rates))) < args.flip
        _copy_label_sets(
            raw,
            project,
            args,
            item_ids,
            annotators,
            holders,
            lambda n, slot: truth[n] ^ flips[n, slot],
            now,
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return project.pk, time.monotonic() - started


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def measure(project_id: int, queue) -> None:
    """In a fresh process: compute and store the report, timing it and its peak memory."""
    import django

    django.setup()
    import tracemalloc

    # Imports and Django's own start-up are not the report's cost: the statistics libraries
    # load on first use, which a long-lived worker paid long before.
    import krippendorff  # noqa: F401
    import matplotlib.backends.backend_svg  # noqa: F401
    import pandas  # noqa: F401
    import scipy.stats  # noqa: F401

    from analysis.svg import _pyplot

    _pyplot()  # matplotlib's figure and pyplot, as the Figure 1 SVG loads them

    from annotation.models import Project
    from annotation.services.reports import report_compute, report_store

    project = Project.objects.get(pk=project_id)
    baseline = _rss_mb()
    started, cpu_started = time.perf_counter(), time.process_time()
    computed = report_compute(project=project)
    computed_at = time.perf_counter()
    report_store(project=project, computed=computed, labels="annotators", include_excluded=False)
    stored_at = time.perf_counter()
    # This process's own CPU time: on a shared machine the seconds include waiting for a core.
    cpu = time.process_time() - cpu_started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    # A second run under tracemalloc: Python-level peak allocation of the report itself.
    project.refresh_from_db()
    tracemalloc.start()
    report_compute(project=project)
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    decisions = computed.data["agreement"]["decisions"]
    queue.put(
        {
            "compute": computed_at - started,
            "store": stored_at - computed_at,
            "cpu": cpu,
            "baseline_mb": baseline,
            "peak_rss_mb": peak,
            "traced_peak_mb": traced_peak / 1024 / 1024,
            "summary": computed.data["summary"],
            "factual": decisions[0],
            "json_kb": len(json.dumps(computed.data)) / 1024,
        }
    )


def cleanup(project_id: int) -> None:
    from django.db import connection, transaction

    from annotation.models import Project
    from core.models import User

    project = Project.objects.get(pk=project_id)
    owner = project.owner
    annotator_ids = list(project.members.values_list("annotator_id", flat=True))
    with transaction.atomic(), connection.cursor() as cursor:
        # Straight deletes: the ORM's cascade would load every label set first.
        for table in ("annotation_labelset", "annotation_assignment"):
            cursor.execute(f"DELETE FROM {table} WHERE project_id = %s", [project_id])
        cursor.execute("DELETE FROM annotation_item WHERE project_id = %s", [project_id])
        project.delete()
        User.objects.filter(pk__in=annotator_ids).delete()
        owner.delete()


def main() -> int:
    args = parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        print(
            "bench_agreement needs PostgreSQL: set DATABASE_URL=postgres://USER@HOST:5432/DB "
            "(the benchmark creates a project there and deletes it afterwards).",
            file=sys.stderr,
        )
        return 2
    if args.k > args.pool:
        print("--pool must be at least --k.", file=sys.stderr)
        return 2
    import django

    django.setup()
    from django.db import connections

    print(
        f"Seeding {args.sentences:,} sentences ({args.sentences // args.per_item:,} captions) "
        f"x {args.k} annotators (pool {args.pool}) x 7 categories ..."
    )
    project_id, seeded = seed(args)
    print(f"  seeded in {seeded:.1f} s")
    connections.close_all()
    try:
        context = multiprocessing.get_context("spawn")
        queue = context.Queue()
        process = context.Process(target=measure, args=(project_id, queue))
        process.start()
        result = queue.get(timeout=600)
        process.join()
    finally:
        if not args.keep:
            cleanup(project_id)
    factual = result["factual"]
    summary = result["summary"]
    total = result["compute"] + result["store"]
    print(
        f"Report over {summary['sentences']:,} sentences, {summary['label_sets']:,} label sets, "
        f"{summary['annotators']} annotators"
    )
    print(f"  compute           {result['compute']:.2f} s")
    print(f"  store snapshot    {result['store']:.2f} s   (report JSON {result['json_kb']:.0f} KB)")
    print(
        f"  total             {total:.2f} s   (target < 2 s: {'met' if total < 2 else 'MISSED'}); "
        f"CPU {result['cpu']:.2f} s in this process"
    )
    peak = result["peak_rss_mb"]
    print(
        f"  peak memory       {peak:.0f} MB RSS "
        f"({peak - result['baseline_mb']:.0f} MB above the process's "
        f"{result['baseline_mb']:.0f} MB at start); Python allocations peak "
        f"{result['traced_peak_mb']:.0f} MB   (target < 300 MB: "
        f"{'met' if peak < 300 else 'MISSED'})"
    )
    print(
        f"  factual decision  kappa {factual['fleiss_kappa']:.3f}, p {factual['majority_agreement']:.3f}, "
        f"alpha {factual['krippendorff_alpha']:.3f}, AC1 {factual['gwet_ac1']:.3f}"
    )
    print("  project deleted" if not args.keep else f"  project {project_id} kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
