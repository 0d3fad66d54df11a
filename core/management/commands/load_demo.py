"""Demo accounts and data for `make demo`. Safe to run again: it reuses what exists."""

from django.core.management.base import BaseCommand
from django.db import transaction

from annotation.models import Project
from annotation.services import project_create, project_join
from core.models import User

DEMO_PASSWORD = "chartroom-demo"
RESEARCHER = "researcher"
ANNOTATORS = ["annotator1", "annotator2", "annotator3"]
DEMO_PROJECT_SLUG = "demo-captions"


def _account(username: str, role: str) -> User:
    user, created = User.objects.get_or_create(username=username, defaults={"role": role})
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save(update_fields=["password"])
    return user


class Command(BaseCommand):
    help = "Create the demo accounts and demo data (idempotent)."

    @transaction.atomic
    def handle(self, *args, **options):
        researcher = _account(RESEARCHER, User.Role.RESEARCHER)
        if researcher.role != User.Role.RESEARCHER or not researcher.is_staff:
            researcher.role = User.Role.RESEARCHER
            researcher.is_staff = researcher.is_superuser = True
            researcher.save(update_fields=["role", "is_staff", "is_superuser"])
        project = Project.objects.filter(slug=DEMO_PROJECT_SLUG).first() or project_create(
            owner=researcher,
            title="Demo caption annotation",
            slug=DEMO_PROJECT_SLUG,
            description="Machine-written captions of generated charts, labelled sentence by sentence.",
        )
        for name in ANNOTATORS:
            project_join(project=project, annotator=_account(name, User.Role.ANNOTATOR))
        self.stdout.write(self.style.SUCCESS("Demo accounts ready."))
