import secrets
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from annotation.models import Project
from core.demo_accounts import ADMIN, ANNOTATORS, DEMO_PASSWORD, RESEARCHER


def participant_link(base: str, study) -> str:
    """A link as the study's platform opens it, with a fresh made-up id each time.

    A fresh id, because an id that has started the study resumes only in the browser
    that started it: anyone else opening the same link would be told it is taken.
    """
    from studies.services.sessions.platform import LINK_SUFFIX

    suffix = LINK_SUFFIX.get(study.platform, "")
    for placeholder in ("{{%PROLIFIC_PID%}}", "{{%STUDY_ID%}}", "{{%SESSION_ID%}}"):
        suffix = suffix.replace(placeholder, secrets.token_hex(12))
    suffix = suffix.replace("%SURVEY_CODE%", str(secrets.randbelow(90000) + 10000))
    for placeholder in ("${workerId}", "${assignmentId}", "${hitId}"):
        suffix = suffix.replace(placeholder, secrets.token_hex(7).upper())
    suffix = suffix.replace("PARTICIPANT_ID", f"demo-{secrets.token_hex(4)}")
    return f"{base}/s/{study.slug}/{suffix}"


DEFAULT_BASE_URL = "http://127.0.0.1:8000"


def served_url_file() -> Path:
    """Where demo_serve notes the address it serves on, for a later demo_info to print."""
    return Path(settings.VAR_DIR) / "demo-url"


def served_base_url() -> str:
    """The address demo_serve last started on (the default port if it never ran)."""
    try:
        return served_url_file().read_text().strip() or DEFAULT_BASE_URL
    except OSError:
        return DEFAULT_BASE_URL


class Command(BaseCommand):
    help = "Print the demo's URLs and logins (on the address demo_serve last started on)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--base-url", default=None, help="the server's address (default: demo_serve's)"
        )

    def handle(self, *args, base_url, **options):
        base = (base_url or served_base_url()).rstrip("/")
        lines = [
            f"  Start page        {base}/",
            f"  Researcher login  {base}/login/   user '{RESEARCHER}', password '{DEMO_PASSWORD}'",
            f"  Annotator logins  {base}/login/   users {', '.join(repr(a) for a in ANNOTATORS)}, password '{DEMO_PASSWORD}'",
            "                    and 'annotator-new' (same password), who still has to pass the qualification rounds",
            "                    (two attempts per round); `make demo-reset` puts the demo back to its first state",
            f"  Admin site        {base}/admin/   user '{ADMIN}', password printed once by load_demo",
            f"  API docs          {base}/api/docs/",
            f"  Health            {base}/healthz",
        ]
        from demo.study import DEMO_SLUG as STUDY_SLUG
        from studies.models import Study

        study = Study.objects.filter(slug=STUDY_SLUG).first()
        if study:
            lines.append(f"  Participant link  {participant_link(base, study)}   ({study.title})")
        for project in Project.objects.all()[:3]:
            lines.append(
                f"  Annotator invite  {base}/annotation/join/{project.invite_code}/  ({project.title})"
            )
        self.stdout.write("\n".join(lines))
