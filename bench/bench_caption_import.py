"""How long a large caption import takes, and how much memory it needs, on PostgreSQL.

Writes a JSON Lines file of N captions (100,000 by default; 2 to 6 sentences each, reference
labels on most, an http(s) image URL or, with --images, file names in a zip of charts), then
imports it twice into fresh projects: once through the import service as the
`import_captions` command does (the file open, read as a stream), once through the
background job a large upload becomes (stored privately, run in-process here, with its
progress reports). Prints seconds, rows per second
and the peak memory of each, and checks every item and reference label arrived.

It needs PostgreSQL: set DATABASE_URL. The benchmark creates (and afterwards drops) its own
database, `<your database>_bench_captions`, on that server.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chartroom python bench/bench_caption_import.py
    python bench/bench_caption_import.py --captions 10000 --images 500   # a quicker run
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import secrets
import sys
import tempfile
import time
import zipfile
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_annotation_queue import ROOT, bench_database_url, recreate_database  # noqa: E402

MODELS = ["gpt4v", "bard", "deplot", "chartt5", "matcha", "unichart", "llava", "pix2struct"]
KEYS = ["value_error", "label_error", "trend_error", "magnitude_error", "ooc_error"]
SUBJECTS = ["turnout", "sales", "exports", "rainfall", "approval", "revenue", "enrolment"]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--captions", type=int, default=100_000, help="captions (100000)")
    parser.add_argument(
        "--images", type=int, default=0, help="charts in a zip the captions name (0: URLs)"
    )
    parser.add_argument("--keep-db", action="store_true", help="do not drop the bench database")
    return parser.parse_args()


def caption_records(n: int, images: int, seed: int = 7):
    rng = random.Random(seed)
    for i in range(n):
        model = rng.choice(MODELS)
        subject = rng.choice(SUBJECTS)
        sentences = [
            f"The chart shows {subject} in {rng.choice(['Asia', 'Europe', 'the U.S.', 'Africa'])} "
            f"from {1990 + s} to {2000 + s}, peaking at {rng.uniform(1, 99):.1f}% in {2001 + s}."
            for s in range(rng.randint(2, 6))
        ]
        record = {
            "_id": f"{model}-bench_{i}",
            "sentences": sentences,
            "model": model,
            "dataset": rng.choice(["pew", "vistext", "statista"]),
            "image_path": (
                f"chart_{i % images}.png" if images else f"https://charts.example.org/{i}.png"
            ),
        }
        if rng.random() < 0.9:
            record["labels"] = [
                rng.sample(KEYS, k=1) if rng.random() < 0.25 else [] for _ in sentences
            ]
        yield record


def write_inputs(folder: Path, args) -> tuple[Path, Path | None]:
    captions = folder / "captions.jsonl"
    with captions.open("w") as out:
        for record in caption_records(args.captions, args.images):
            out.write(json.dumps(record) + "\n")
    if not args.images:
        return captions, None
    from PIL import Image

    charts = folder / "charts.zip"
    with zipfile.ZipFile(charts, "w", zipfile.ZIP_STORED) as archive:
        for i in range(args.images):
            buffer = io.BytesIO()
            Image.new("RGB", (320, 240), (i % 256, (i // 256) % 256, 90)).save(buffer, "PNG")
            archive.writestr(f"charts/chart_{i}.png", buffer.getvalue())
    return captions, charts


@contextmanager
def opened(path: Path | None):
    """The file at ``path`` open for reading, or None without a path."""
    if path is None:
        yield None
        return
    with path.open("rb") as handle:
        yield handle


def rss_mb() -> float:
    return _status("VmRSS")


def reset_peak() -> bool:
    """Restart the peak-memory mark (Linux); False where the kernel does not allow it."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def peak_mb() -> float:
    return _status("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _status(field: str) -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def measure(label: str, run) -> dict:
    import gc

    gc.collect()
    before = rss_mb()
    exact = reset_peak()
    started = time.perf_counter()
    outcome = run()
    seconds = time.perf_counter() - started
    peak = peak_mb()
    print(
        f"  {label:<8} {seconds:6.1f} s  peak memory {peak:6.0f} MB "
        f"({'+' if exact else 'process peak; +'}{peak - before:.0f} MB over the {before:.0f} MB "
        "before it)"
    )
    return {"seconds": seconds, **outcome}


def write_inputs_timed(folder: Path, args) -> tuple[Path, Path | None]:
    """Write the benchmark's input files and say how big they are and how long it took."""
    started = time.perf_counter()
    captions, charts = write_inputs(folder, args)
    print(
        f"Wrote {args.captions:,} captions ({captions.stat().st_size / 2**20:.1f} MB"
        + (
            f", zip of {args.images:,} charts {charts.stat().st_size / 2**20:.1f} MB"
            if charts
            else ""
        )
        + f") in {time.perf_counter() - started:.1f} s"
    )
    return captions, charts


def print_stages(stages: dict[str, float]) -> None:
    """How long each stage of the import took, from the times its progress messages began."""
    names = list(stages)
    print(
        f"  {'':<8} stages: "
        + ", ".join(
            f"{name.lower()} {stages[after] - stages[name]:.1f} s"
            for name, after in zip(names, names[1:], strict=False)
        )
    )


def run_benchmark(args, folder: Path) -> bool:
    import django

    django.setup()
    from django.core.files import File
    from django.core.management import call_command

    from annotation.models import Item, ReferenceLabels
    from annotation.services import captions_import, project_create
    from annotation.services.import_jobs import captions_import_enqueue
    from core.models import User

    call_command("migrate", verbosity=0)
    owner = User.objects.create_user(username="bench-owner", role=User.Role.RESEARCHER)

    captions, charts = write_inputs_timed(folder, args)
    size = captions.stat().st_size + (charts.stat().st_size if charts else 0)
    expected_labels = sum(1 for r in caption_records(args.captions, args.images) if "labels" in r)

    stages: dict[str, float] = {}

    def stage_clock(fraction: float, message: str) -> None:
        stages.setdefault(message.split(":")[0], time.perf_counter())

    def by_service():
        project = project_create(owner=owner, title="Service", slug="bench-service")
        with captions.open("rb") as data, opened(charts) as images:
            result = captions_import(
                project=project,
                data=data,
                filename=captions.name,
                user=owner,
                images=images,
                images_filename=charts.name if charts else "",
                progress=stage_clock,
            )
        stages["end"] = time.perf_counter()
        return {"project": project, "created": result.created}

    def by_job():
        project = project_create(owner=owner, title="Job", slug="bench-job")
        with captions.open("rb") as upload, opened(charts) as images:
            job = captions_import_enqueue(
                project=project,
                user=owner,
                upload=File(upload, name=captions.name),
                images=File(images, name=charts.name) if images else None,
            )
        job.refresh_from_db()
        if job.state != job.State.DONE or not job.result.get("ok"):
            raise SystemExit(f"the job did not import the file: {job.error or job.result}")
        return {"project": project, "created": job.result["created"]}

    print(f"Importing {size / 2**20:.1f} MB:")
    ok = True
    for label, run in (("service", by_service), ("job", by_job)):
        outcome = measure(label, run)
        project = outcome["project"]
        items = Item.objects.filter(project=project).count()
        labels = ReferenceLabels.objects.filter(item__project=project).count()
        rate = items / outcome["seconds"]
        good = items == args.captions and labels == expected_labels
        ok = ok and good
        print(
            f"  {'':<8} {items:,} items and {labels:,} reference label sets "
            f"({rate:,.0f} items/s) {'OK' if good else 'FAIL: expected ' + str(args.captions)}"
        )
        if label == "service":
            print_stages(stages)
    return ok


def main() -> int:
    args = parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        print(
            "bench_caption_import needs PostgreSQL: set DATABASE_URL=postgres://USER@HOST:5432/NAME "
            "(the benchmark creates and drops its own NAME_bench_captions database there).",
            file=sys.stderr,
        )
        return 2
    sys.path.insert(0, str(ROOT))
    bench_url, name, admin_url = bench_database_url(url, "_bench_captions")
    print(f"Caption import benchmark: {args.captions:,} captions, database {name}")
    recreate_database(admin_url, name)
    with tempfile.TemporaryDirectory(prefix="bench-captions-") as tmp:
        folder = Path(tmp)
        os.environ.update(
            DATABASE_URL=bench_url,
            DJANGO_SETTINGS_MODULE="config.settings",
            # Debug mode would keep the SQL of every query in memory and skew the figures.
            DJANGO_DEBUG="0",
            SECRET_KEY=secrets.token_urlsafe(40),
            ALLOWED_HOSTS="127.0.0.1,localhost",
            MEDIA_ROOT=str(folder / "media"),
            PRIVATE_MEDIA_ROOT=str(folder / "private"),
        )
        os.environ.pop("CELERY_BROKER_URL", None)
        os.environ["CHARTROOM_JOB_RUNNER"] = "celery"  # no broker: the job runs here, at once
        try:
            return 0 if run_benchmark(args, folder) else 1
        finally:
            from django.db import connections

            connections.close_all()
            if not args.keep_db:
                recreate_database(admin_url, name, drop_only=True)


if __name__ == "__main__":
    sys.exit(main())
