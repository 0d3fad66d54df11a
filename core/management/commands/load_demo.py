"""Demo accounts and data for `make demo`. Safe to run again: it reuses what exists."""

import secrets

from django.core.management.base import BaseCommand

from annotation.demo import NEW_ANNOTATOR, load_annotation_demo
from core.models import User
from studies.demo_library import load_library_demo
from studies.demo_model_eval import load_model_eval_demo
from studies.demo_results import simulate_demo_results
from studies.demo_study import load_study_demo

DEMO_PASSWORD = "chartroom-demo"
RESEARCHER = "researcher"
ANNOTATORS = ["annotator1", "annotator2", "annotator3"]
ADMIN = "admin"
# Every account the demo creates with the published password: production refuses to
# start while one of them still has it (core.security).
DEMO_USERNAMES = [RESEARCHER, *ANNOTATORS, NEW_ANNOTATOR, ADMIN]


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

        self.stdout.write("Chart library: rendering the demo benchmark...")
        chart_set = load_library_demo(researcher)
        study = load_study_demo(researcher, chart_set)
        simulate_demo_results(study, participants=60, seed=1)
        load_model_eval_demo(study)
        self.stdout.write(f"Study: {study.title} ({study.get_status_display()})")
        project = load_annotation_demo(researcher, annotators)
        self.stdout.write(f"Annotation project: {project.title} ({project.items.count()} items)")
        self.stdout.write(self.style.SUCCESS("Demo data ready."))

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
