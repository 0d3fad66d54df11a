"""python manage.py export_model_eval STUDY OUT.zip [--seed N]"""

import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from studies.models import Study


class Command(BaseCommand):
    help = (
        "Write a zip of a study's model analyses: one CSV per table (FACT error rates with "
        "the humans, chi-square, MIND metrics and predictions, log odds and Kendall's tau, "
        "justifications, coverage), report.json, the SVG figures and a README.txt data "
        "dictionary."
    )

    def add_arguments(self, parser):
        parser.add_argument("study", help="The study's slug.")
        parser.add_argument("output", help="The zip file to write.")
        parser.add_argument(
            "--seed",
            type=int,
            help="Seed of the mixed model's fit (default: the study's seed, as on the page).",
        )

    def handle(self, *args, **options):
        from studies.services.model_eval_export import (
            ModelEvalExportError,
            model_eval_export_write,
        )

        study = Study.objects.filter(slug=options["study"]).first()
        if study is None:
            raise CommandError(f"No study with the slug {options['study']!r}.")
        output = Path(options["output"])
        if not output.parent.is_dir():
            raise CommandError(f"Cannot write {output}: no directory {output.parent}.")
        # Written beside the target and renamed, so a failure never leaves half a zip.
        partial = output.with_name(output.name + ".partial")
        try:
            with open(partial, "wb") as handle:
                names = model_eval_export_write(study=study, out=handle, seed=options["seed"])
            os.replace(partial, output)
        except ModelEvalExportError as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:
            raise CommandError(f"Cannot write {output}: {exc.strerror}") from None
        finally:
            partial.unlink(missing_ok=True)
        self.stdout.write(f"Wrote {len(names)} files of {study.slug}'s model analyses to {output}.")
