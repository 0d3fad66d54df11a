"""python manage.py export_prompts STUDY [--output FILE]"""

from django.core.management.base import BaseCommand, CommandError

from studies.models import Study


class Command(BaseCommand):
    help = (
        "Write a zip of a study's prompts for a model runner: each chart's image and "
        "prompts.jsonl with chart_id, image, fact_prompt and mind_prompt per chart."
    )

    def add_arguments(self, parser):
        parser.add_argument("study", help="The study's slug.")
        parser.add_argument("--output", help="File to write (default: SLUG-prompts.zip).")

    def handle(self, *args, **options):
        from studies.services.model_prompts import prompts_export_write, prompts_filename

        study = Study.objects.filter(slug=options["study"]).first()
        if study is None:
            raise CommandError(f"No study with the slug {options['study']!r}.")
        output = options["output"] or prompts_filename(study)
        try:
            with open(output, "wb") as handle:
                count = prompts_export_write(study=study, out=handle)
        except OSError as exc:
            raise CommandError(f"Cannot write {output}: {exc.strerror}") from None
        self.stdout.write(f"Wrote the prompts of {count} charts to {output}.")
