from django.core.management.base import BaseCommand

from annotation.models import Project
from core.management.commands.load_demo import ANNOTATORS, DEMO_PASSWORD, RESEARCHER

DEMO_PARTICIPANT = "demo-participant-1"


class Command(BaseCommand):
    help = "Print the demo's URLs and logins."

    def add_arguments(self, parser):
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")

    def handle(self, *args, base_url, **options):
        base = base_url.rstrip("/")
        lines = [
            f"  Start page        {base}/",
            f"  Researcher login  {base}/login/   user '{RESEARCHER}', password '{DEMO_PASSWORD}'",
            f"  Annotator logins  {base}/login/   users {', '.join(repr(a) for a in ANNOTATORS)}, password '{DEMO_PASSWORD}'",
            "                    and 'annotator-new' (same password), who still has to pass the qualification rounds",
            "                    (two attempts per round); `make demo-reset` puts the demo back to its first state",
            f"  API docs          {base}/api/docs/",
            f"  Health            {base}/healthz",
        ]
        from studies.demo_study import DEMO_SLUG as STUDY_SLUG
        from studies.models import Study

        study = Study.objects.filter(slug=STUDY_SLUG).first()
        if study:
            lines.append(
                f"  Participant link  {base}/s/{study.slug}/?pid={DEMO_PARTICIPANT}   ({study.title})"
            )
        for project in Project.objects.all()[:3]:
            lines.append(
                f"  Annotator invite  {base}/annotation/join/{project.invite_code}/  ({project.title})"
            )
        self.stdout.write("\n".join(lines))
