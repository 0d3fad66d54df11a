"""Demo accounts and data for `make demo`. Safe to run again: it reuses what exists.

Every step checks whether it was done before and skips itself then, so a second
`make demo` is quick: charts are rendered, participants simulated, results computed
and model answers imported only while they are missing.
"""

import secrets
import time

from django.core.management.base import BaseCommand

from core.demo_accounts import ADMIN, ANNOTATORS, DEMO_PASSWORD, RESEARCHER
from core.models import User
from demo.annotation import load_annotation_demo
from demo.library import library_demo_generate
from demo.model_eval import demo_models_ensure
from demo.results import demo_results_ensure
from demo.study import load_study_demo

# Production refuses to start while a demo account still has the published password
# (core.security), so the names and the password are kept in core.demo_accounts.


def demo_account(username: str, role: str) -> User:
    user, created = User.objects.get_or_create(username=username, defaults={"role": role})
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save(update_fields=["password"])
    return user


class Command(BaseCommand):
    help = "Create the demo accounts and demo data (idempotent)."

    def handle(self, *args, **options):
        researcher = demo_account(RESEARCHER, User.Role.RESEARCHER)
        # The demo researcher's password is published, so it is an ordinary researcher:
        # no admin site, no rights over other researchers' work.
        if not researcher.is_researcher or researcher.is_staff or researcher.is_superuser:
            researcher.role = User.Role.RESEARCHER
            researcher.is_staff = researcher.is_superuser = False
            researcher.save(update_fields=["role", "is_staff", "is_superuser"])
        self.admin_account()
        annotators = [demo_account(name, User.Role.ANNOTATOR) for name in ANNOTATORS]

        started = time.perf_counter()
        generated = library_demo_generate(researcher)
        rendered = len(generated.summary.created) + len(generated.summary.updated)
        chart_set = generated.chart_set
        self.stdout.write(
            f"Chart library: {rendered} pair(s) rendered" if rendered else
            "Chart library: up to date, nothing rendered"
        )  # fmt: skip
        study = load_study_demo(researcher, chart_set)
        done = demo_results_ensure(study, participants=60, seed=1)
        if demo_models_ensure(study):
            done.append("demo models imported")
        self.stdout.write(
            f"Study: {study.title} ({study.get_status_display()})"
            + (f": {', '.join(done)}" if done else ", nothing to redo")
        )
        project = load_annotation_demo(researcher, annotators)
        self.stdout.write(f"Annotation project: {project.title} ({project.items.count()} items)")
        seconds = time.perf_counter() - started
        self.stdout.write(self.style.SUCCESS(f"Demo data ready ({seconds:.1f} s)."))

    def admin_account(self) -> None:
        """An admin for /admin/ with a random password, printed once when it is created."""
        if User.objects.filter(username=ADMIN).exists():
            return
        password = secrets.token_urlsafe(12)
        User.objects.create_superuser(username=ADMIN, password=password, role=User.Role.RESEARCHER)
        self.stdout.write(
            f"Admin account for /admin/: user '{ADMIN}', password '{password}' "
            "(shown only now; change it with `manage.py changepassword admin`)."
        )
