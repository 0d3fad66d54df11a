"""`manage.py export_annotations PROJECT --format F`: the dataset, raw labels or the report."""

import sys
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from analysis.aggregation import METHODS
from annotation.models import Project
from annotation.services.exports import EXPORT_FORMATS, project_export


class Command(BaseCommand):
    help = (
        "Export an annotation project: chocolate (the aggregated dataset as CHOCOLATE JSON), "
        "labels-csv / labels-jsonl (every annotator decision in long form, pseudonymous ids), "
        "report-json (agreement and dataset statistics). Writes to stdout unless --output is given."
    )

    def add_arguments(self, parser):
        parser.add_argument("project", help="The project's slug.")
        parser.add_argument("--format", required=True, choices=EXPORT_FORMATS, dest="fmt")
        parser.add_argument(
            "--labels",
            choices=["annotators", "reference"],
            help="The annotators' labels (aggregated for chocolate, report-json and dataset-zip) "
            "or the imported reference labels (default: annotators' once there are any; "
            "labels-csv and labels-jsonl: the annotators' unless reference is given).",
        )
        parser.add_argument(
            "--method",
            choices=list(METHODS),
            help="How annotators' labels are aggregated; the export then carries the method "
            "and the posteriors (default: the project's aggregation method).",
        )
        parser.add_argument("--output", help="Write to this file instead of stdout.")
        parser.add_argument(
            "--include-excluded",
            action="store_true",
            help="Count every label set, also from unqualified or blocked annotators.",
        )
        parser.add_argument(
            "--base-url",
            default="",
            help="The site's address (https://chartroom.example.org), so charts stored here "
            "export as absolute URLs instead of file names.",
        )

    def handle(
        self, *args, project, fmt, labels, method, output, include_excluded, base_url, **options
    ):
        target = Project.objects.filter(slug=project).first()
        if target is None:
            raise CommandError(f"No annotation project with slug {project!r}.")
        if fmt == "dataset-zip" and not output:
            raise CommandError("dataset-zip writes a zip: give --output FILE.")
        try:
            export = project_export(
                project=target,
                fmt=fmt,
                labels=labels,
                include_excluded=include_excluded,
                base_url=base_url,
                method=method,
            )
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        if output:
            path = Path(output)
            if not path.parent.is_dir():
                raise CommandError(f"{path.parent}: no such directory.")
            with path.open("wb") as out:
                for chunk in export.byte_chunks():
                    out.write(chunk)
            self.stderr.write(f"Wrote {path}.")
        else:
            # Straight to the real stdout: the command's wrapper would add a newline per chunk.
            stream = getattr(self.stdout, "_out", sys.stdout)
            for chunk in export.chunks:
                stream.write(chunk)
            stream.flush()
