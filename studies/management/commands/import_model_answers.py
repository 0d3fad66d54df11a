"""python manage.py import_model_answers STUDY FILE"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from studies.models import Study


class Command(BaseCommand):
    help = (
        "Import model answers (CSV or JSON Lines: model, chart_id, fact_answer, "
        "mind_prediction, mind_justification) into a study. Nothing is imported when any "
        "row has a blocking problem; every problem is listed with its row number. "
        "A model imported again replaces its earlier answers."
    )

    def add_arguments(self, parser):
        parser.add_argument("study", help="The study's slug.")
        parser.add_argument("file", help="The answers file.")

    def handle(self, *args, **options):
        from studies.services.model_eval import model_answers_import

        study = Study.objects.filter(slug=options["study"]).first()
        if study is None:
            raise CommandError(f"No study with the slug {options['study']!r}.")
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        report = model_answers_import(study=study, source=str(path), filename=path.name)
        for problem in report.problems:
            self.stderr.write(str(problem))
        if report.blocking or not report.imported:
            raise CommandError(
                f"Nothing imported: {len(report.blocking or report.problems)} problem(s)."
            )
        for item in report.coverage:
            self.stdout.write(
                f"{item.model}: {report.imported.get(item.model, 0)} rows, answered "
                f"{item.answered}/{item.total} charts (FACT {item.fact_answered}, "
                f"MIND {item.mind_answered})."
            )
