"""Put the demo back to its first state, as `make demo` left it on a fresh machine.

What a visitor to the demo changes comes back: the demo study loses the sessions
started through the participant link and gets its settings, status and models back
(its results are recomputed when they changed); ``annotator-new`` has not taken a
qualification round; the demo annotation project holds only its pre-loaded labels;
the studies, projects, chart sets and API tokens the demo researcher made are gone;
and the demo accounts have the demo password again. The chart library's renders and
the simulated participants stay.
"""

from django.core.management import call_command
from django.core.management.base import BaseCommand

from core.demo_accounts import ANNOTATORS, DEMO_PASSWORD, RESEARCHER
from core.models import User
from demo.annotation import NEW_ANNOTATOR, annotation_demo_reset
from demo.reset import researcher_extras_remove, study_demo_reset


class Command(BaseCommand):
    help = (
        "Reset the demo: the demo study and its participant link, annotator-new's rounds, "
        "the demo annotation project, what the demo researcher created, the demo passwords."
    )

    def handle(self, *args, **options):
        for user in User.objects.filter(username__in=[RESEARCHER, *ANNOTATORS, NEW_ANNOTATOR]):
            user.set_password(DEMO_PASSWORD)
            user.is_active = True
            user.save(update_fields=["password", "is_active"])
        researcher = User.objects.filter(username=RESEARCHER).first()
        if researcher is not None:
            extras = researcher_extras_remove(researcher)
            removed, changed = study_demo_reset(researcher)
            self.stdout.write(f"Participant link: {removed} visitor session(s) removed.")
            if changed:
                self.stdout.write(f"Demo study: put back {', '.join(changed)}.")
            made = ", ".join(f"{n} {what}" for what, n in extras.items() if n)
            self.stdout.write(f"Made during the visit and removed: {made or 'nothing'}.")
        # Anything missing comes back, and results that the reset dropped are recomputed.
        call_command("load_demo", stdout=self.stdout)
        researcher = User.objects.get(username=RESEARCHER)
        annotators = list(User.objects.filter(username__in=ANNOTATORS).order_by("username"))
        project = annotation_demo_reset(researcher, annotators)
        self.stdout.write(
            f"Annotation project: {project.title} rebuilt ({project.items.count()} items)."
        )
        self.stdout.write(self.style.SUCCESS("Demo reset to its first state."))
