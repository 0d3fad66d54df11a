"""Render a spec file into chart pairs of a chart set."""

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from studies.management.commands.import_chartom import resolve_owner
from studies.services.library import chartset_generate_new_or_update, specs_parse


class Command(BaseCommand):
    help = (
        "Render every spec of SPEC (a JSON list of chart specs, like fixtures/chart_specs.json) "
        "as a non-manipulated and a manipulated chart and save the pairs into the chart set "
        "--set. Running it again re-renders only the specs that changed."
    )

    def add_arguments(self, parser):
        parser.add_argument("spec", help="JSON file with a list of chart specs")
        parser.add_argument("--set", dest="slug", required=True, help="Slug of the chart set")
        parser.add_argument(
            "--owner", help="Username of the owning researcher (needed for a new set)"
        )
        parser.add_argument("--title", help="Title of a new chart set")

    def handle(self, *args, spec, slug, owner=None, title=None, **options):
        path = Path(spec)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"{spec}: cannot read it ({exc}).") from None
        owner_user = resolve_owner(owner, slug)
        try:
            specs = specs_parse(text)
            result = chartset_generate_new_or_update(
                owner=owner_user, specs=specs, slug=slug, title=title or ""
            )
        except ValidationError as exc:
            for message in exc.messages:
                self.stderr.write(f"{spec}: {message}")
            raise CommandError(
                f"{len(exc.messages)} problem(s) in {spec}; nothing was saved."
            ) from None
        data = result.as_dict()
        self.stdout.write(
            self.style.SUCCESS(
                f"{len(specs)} pairs in chart set “{result.chart_set.title}” ({result.chart_set.slug}): "
                f"{len(data['created'])} new, {len(data['updated'])} updated, "
                f"{len(data['unchanged'])} unchanged, in {data['seconds']:.2f} s."
            )
        )
