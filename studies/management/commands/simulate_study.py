"""python manage.py simulate_study STUDY --participants N --seed S"""

from django.core.management.base import BaseCommand, CommandError

from studies.models import Study
from studies.services.sessions import StudyUnavailable


class Command(BaseCommand):
    help = (
        "Fill a pilot or live study with simulated participants. Each one starts a real "
        "session (same order, trials and numbering as a real participant) and answers every "
        "trial; answers are checked by the real answer checker. Whether an answer is wrong "
        "depends on the chart's group and on whether it is the manipulated version (groups "
        "coded like CHARTOM's G1..G15 take the paper's Table 1 HMIs; others a base error of "
        "0.15 and a log-odds effect of 1.5), plus random participant and question effects. "
        "About --attention-fail-rate of participants are inattentive: fast, error-prone, and "
        "failing the attention checks; --timeout-rate of sessions stop part-way as timed out. "
        "The same --seed always adds the same participants (ids sim-<seed>-<i>); running it "
        "again resumes them instead of adding more. Recompute the results afterwards from "
        "the results page or with --compute."
    )

    def add_arguments(self, parser):
        parser.add_argument("study", help="The study's slug.")
        parser.add_argument("--participants", type=int, default=60)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--attention-fail-rate", type=float, default=0.1)
        parser.add_argument("--timeout-rate", type=float, default=0.03)
        parser.add_argument(
            "--compute", action="store_true", help="Compute the results snapshot afterwards."
        )

    def handle(self, *args, **options):
        from studies.selectors.results import study_counted_response_count
        from studies.services.results.compute import results_compute, results_snapshot_save
        from studies.services.results.simulate import study_simulate

        study = Study.objects.filter(slug=options["study"]).first()
        if study is None:
            raise CommandError(f"No study with the slug {options['study']!r}.")
        if options["participants"] < 1:
            raise CommandError("--participants must be at least 1.")
        for name in ("attention_fail_rate", "timeout_rate"):
            if not 0 <= options[name] <= 1:
                raise CommandError(f"--{name.replace('_', '-')} must be between 0 and 1.")

        def progress(done, total):
            if done % 500 == 0:
                self.stdout.write(f"  {done}/{total}")

        try:
            summary = study_simulate(
                study=study,
                participants=options["participants"],
                seed=options["seed"],
                attention_fail_rate=options["attention_fail_rate"],
                timeout_rate=options["timeout_rate"],
                progress=progress,
            )
        except StudyUnavailable as exc:
            raise CommandError(
                f"{exc} (study status: {study.status}; set it to pilot or live)."
            ) from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"{summary.created} new participants ({summary.completed} completed, "
            f"{summary.timed_out} timed out, {summary.inattentive} inattentive in the "
            f"simulation); {summary.resumed} already there."
        )
        if summary.refused:
            self.stdout.write(f"The study took no more: {summary.refused}")
        study.refresh_from_db()
        if study.stopped_at:
            self.stdout.write(
                f"Stopping rule met at {study.stopped_at:%Y-%m-%d %H:%M} UTC: {study.stopped_detail}"
            )
        if options["compute"]:
            data = results_compute(study)
            results_snapshot_save(
                study=study, data=data, response_count=study_counted_response_count(study)
            )
            self.stdout.write(
                f"Results computed: {data['funnel']['included']} included of "
                f"{data['funnel']['took_part']} who took part."
            )
