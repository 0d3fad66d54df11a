"""CPU per annotation request in one process: submit with next (and plain next) in a loop.

Runs Django's test client against a PostgreSQL database (DATABASE_URL, migrated and seeded
here: a project with --items items, one annotator) with production settings (DEBUG off),
so the figure is the web process's own CPU per item without gunicorn or a load generator
sharing the cores. With --profile it prints the top functions by cumulative time; with
--sql the statements of one submit with next, as the database receives them.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chartroom_NAME \
        python bench/profile_annotation_request.py --items 400 [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import secrets
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=400, help="items to submit (400)")
    parser.add_argument("--profile", action="store_true", help="print the cProfile top 40")
    parser.add_argument("--sort", default="cumulative", help="pstats sort key (cumulative)")
    parser.add_argument(
        "--sql", action="store_true", help="print the statements of one submit with next"
    )
    return parser.parse_args()


def setup_django():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_DEBUG", "0")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(40))
    os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost")
    os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
    os.environ.setdefault("DB_CONN_MAX_AGE", "600")
    os.environ.pop("CELERY_BROKER_URL", None)
    import django

    django.setup()


def seed(items: int) -> tuple[str, str]:
    from django.core.management import call_command

    from annotation.models import Item
    from annotation.services import project_create, project_join
    from core.models import User
    from core.services.tokens import api_token_create

    call_command("migrate", verbosity=0)
    tag = secrets.token_hex(4)
    owner = User.objects.create_user(username=f"prof-owner-{tag}", role=User.Role.RESEARCHER)
    project = project_create(
        owner=owner, title="Profile", slug=f"prof-{tag}", annotators_per_item=3
    )
    Item.objects.bulk_create(
        Item(
            project=project,
            external_id=f"p-{n}",
            sentences=[f"Sentence {s} of caption {n}." for s in range(3)],
            model="gpt4v",
            dataset="pew",
            image_url=f"https://charts.example.org/{n}.png",
            position=n,
        )
        for n in range(items + 21)
    )
    user = User.objects.create_user(username=f"prof-annotator-{tag}", role=User.Role.ANNOTATOR)
    project_join(project=project, annotator=user)
    return project.slug, api_token_create(user=user, name="profile").key


def run(client, slug: str, items: int, headers: dict) -> tuple[int, float, float]:
    """Submit items with next; (items, CPU seconds, wall seconds)."""
    lease = client.post(f"/api/v1/annotator/projects/{slug}/next/", **headers).json()
    labels = [["value_error"], [], []]
    done = 0
    cpu, wall = time.process_time(), time.perf_counter()
    while lease and done < items:
        response = client.post(
            f"/api/v1/annotator/assignments/{lease['id']}/submit/",
            {"labels": labels, "active_seconds": 1, "next": True},
            content_type="application/json",
            **headers,
        )
        assert response.status_code == 201, response.content
        lease = response.json()["next"]
        done += 1
    return done, time.process_time() - cpu, time.perf_counter() - wall


def print_statements(client, slug: str, headers: dict) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        run(client, slug, 1, headers)
    for number, query in enumerate(captured.captured_queries, 1):
        print(f"{number:2d}. {query['sql']}\n")


def main() -> int:
    args = parse_args()
    setup_django()
    from django.test import Client

    slug, key = seed(args.items)
    headers = {"HTTP_AUTHORIZATION": f"Token {key}", "HTTP_ACCEPT": "application/json"}
    client = Client()
    run(client, slug, 20, headers)  # warm up: imports, URL resolver, caches
    if args.sql:
        print_statements(client, slug, headers)
    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        profiler.enable()
    done, cpu, wall = run(client, slug, args.items, headers)
    if profiler:
        profiler.disable()
    print(f"{done} items: {cpu / done * 1000:.2f} ms CPU, {wall / done * 1000:.2f} ms wall per item"
          + (" (under cProfile)" if profiler else ""))  # fmt: skip
    if profiler:
        pstats.Stats(profiler).sort_stats(args.sort).print_stats(40)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
