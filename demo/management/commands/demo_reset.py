"""Put the demo back to its first state, as `make demo` left it on a fresh machine.

What a visitor to the demo changes comes back: the demo study loses the sessions
started through the participant link and gets its settings, status and models back
(its results are recomputed when they changed); ``annotator-new`` has not taken a
qualification round; the demo annotation project holds only its pre-loaded labels;
the studies, projects, chart sets and API tokens the demo researcher made are gone;
and the demo accounts have the demo password again. The chart library's renders and
the simulated participants stay.

The removal is one transaction: if any part of it fails, the command says so and
nothing has changed. What it removed is then built again by ``load_demo``, which
redoes only what is missing, so running the command again finishes a rebuild that
stopped (computing results can take a while, and the demo server keeps serving
meanwhile).
"""

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, transaction
from django.db.models import ProtectedError, RestrictedError

from core.demo_accounts import ANNOTATORS, DEMO_PASSWORD, RESEARCHER
from core.models import User
from demo.annotation import NEW_ANNOTATOR, annotation_demo_remove
from demo.reset import counted, extras_text, researcher_extras_remove, study_demo_reset


class Command(BaseCommand):
    help = (
        "Reset the demo: the demo study and its participant link, annotator-new's rounds, "
        "the demo annotation project, what the demo researcher created, the demo passwords."
    )

    def handle(self, *args, **options):
        try:
            with transaction.atomic():
                said = self.remove()
        except (ProtectedError, RestrictedError, DatabaseError) as exc:
            raise CommandError(
                f"The demo reset stopped and changed nothing ({type(exc).__name__}: {exc}). "
                "Run `make demo-reset` again; if it stops again, `make demo` on a fresh "
                "database starts the demo afresh."
            ) from exc
        for line in said:
            self.stdout.write(line)
        # Anything missing comes back, and results that the reset dropped are recomputed.
        call_command("load_demo", stdout=self.stdout)
        self.stdout.write(self.style.SUCCESS("Demo reset to its first state."))

    def remove(self) -> list[str]:
        """Everything the reset takes away or puts back, in one transaction; what to say."""
        said = []
        for user in User.objects.filter(username__in=[RESEARCHER, *ANNOTATORS, NEW_ANNOTATOR]):
            user.set_password(DEMO_PASSWORD)
            user.is_active = True
            user.save(update_fields=["password", "is_active"])
        researcher = User.objects.filter(username=RESEARCHER).first()
        if researcher is not None:
            extras = researcher_extras_remove(researcher)
            removed, changed = study_demo_reset(researcher)
            sessions = counted(removed, "visitor session", "visitor sessions")
            said.append(f"Participant link: {sessions} removed.")
            if changed:
                said.append(f"Demo study: put back {', '.join(changed)}.")
            said.append(f"Made during the visit and removed: {extras_text(extras)}.")
        if annotation_demo_remove():
            said.append("Annotation project: removed, to be rebuilt from its fixture.")
        return said
