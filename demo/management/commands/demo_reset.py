"""Put the demo back to its first state, as `make demo` left it on a fresh machine.

What a visitor to the demo changes comes back: the participant link's visitor sessions
are removed, ``annotator-new`` has not taken a qualification round, the demo annotation
project holds only its pre-loaded labels, and the demo accounts have the demo
password again. Everything else (the chart library, the study and its simulated
participants) is left as it is; run `load_demo` for anything missing.
"""

from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction

from core.demo_accounts import ANNOTATORS, DEMO_PASSWORD, RESEARCHER
from core.models import User
from demo.annotation import NEW_ANNOTATOR, annotation_demo_reset


class Command(BaseCommand):
    help = "Reset the demo: participant link, annotator-new's rounds, the demo annotation project."

    def handle(self, *args, **options):
        call_command("load_demo", stdout=self.stdout)  # anything missing comes first
        for user in User.objects.filter(username__in=[RESEARCHER, *ANNOTATORS, NEW_ANNOTATOR]):
            user.set_password(DEMO_PASSWORD)
            user.is_active = True
            user.save(update_fields=["password", "is_active"])
        removed = self._participant_link()
        researcher = User.objects.get(username=RESEARCHER)
        annotators = list(User.objects.filter(username__in=ANNOTATORS).order_by("username"))
        project = annotation_demo_reset(researcher, annotators)
        self.stdout.write(f"Participant link: {removed} visitor session(s) removed.")
        self.stdout.write(
            f"Annotation project: {project.title} rebuilt ({project.items.count()} items)."
        )
        self.stdout.write(self.style.SUCCESS("Demo reset to its first state."))

    def _participant_link(self) -> int:
        from demo.study import DEMO_SLUG
        from studies.models import ParticipantSession

        with transaction.atomic():
            # The printed link carries a fresh made-up id each time, so every session
            # but the simulated participants' (``sim-<seed>-<i>``) came from a visitor.
            sessions = ParticipantSession.objects.filter(study__slug=DEMO_SLUG).exclude(
                external_id__startswith="sim-"
            )
            count = sessions.count()
            sessions.delete()
        return count
