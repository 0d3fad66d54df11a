"""python manage.py export_study STUDY --format FORMAT [--output FILE] [--include-platform-ids]"""

import sys

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from studies.models import Study


class Command(BaseCommand):
    help = (
        "Export a study's results. Formats: hmi-zip (the charts in the CHARTOM layout plus "
        "HMI.csv, MIND questions and a README data card), hmi-json, responses-csv and "
        "responses-parquet (one row per participant x answered trial), responses-wide-csv and "
        "responses-wide-parquet (one row per participant). Responses are streamed, so memory "
        "stays constant however large the study. Participants appear under a salted hash; "
        "--include-platform-ids adds their platform ids (logged)."
    )

    def add_arguments(self, parser):
        from studies.services.exports import FORMATS

        parser.add_argument("study", help="The study's slug.")
        parser.add_argument("--format", required=True, choices=sorted(FORMATS))
        parser.add_argument(
            "--output", help="File to write (default: a name from the study and format)."
        )
        parser.add_argument("--include-platform-ids", action="store_true")

    def handle(self, *args, **options):
        from studies.services.exports import export_filename, export_log_platform_ids, export_write

        study = Study.objects.filter(slug=options["study"]).first()
        if study is None:
            raise CommandError(f"No study with the slug {options['study']!r}.")
        fmt = options["format"]
        output = options["output"] or export_filename(study, fmt)
        if options["include_platform_ids"]:
            export_log_platform_ids(study=study, user=None, slug=fmt)
        try:
            if output == "-":
                export_write(
                    study=study,
                    slug=fmt,
                    out=sys.stdout.buffer,
                    include_platform_ids=options["include_platform_ids"],
                )
                return
            with open(output, "wb") as handle:
                export_write(
                    study=study,
                    slug=fmt,
                    out=handle,
                    include_platform_ids=options["include_platform_ids"],
                )
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        except OSError as exc:
            raise CommandError(f"Cannot write {output}: {exc.strerror}") from None
        self.stdout.write(f"Wrote {output}")
