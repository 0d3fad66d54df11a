"""Import a benchmark in the CHARTOM layout (folder, .zip or manifest) into a chart set."""

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils.text import slugify

from core.models import User
from studies.models import ChartSet
from studies.services.library import ImportRejected, chartset_import


def resolve_owner(username: str | None, slug: str) -> User:
    """The researcher named by --owner, else the owner of the existing set."""
    if username:
        user = User.objects.filter(username=username).first()
        if user is None or not user.is_researcher:
            raise CommandError(
                f"No researcher named {username!r}; create one with createresearcher."
            )
        return user
    existing = ChartSet.objects.filter(slug=slug).select_related("owner").first()
    if existing is None:
        raise CommandError(
            f"The chart set {slug!r} does not exist yet; name its owner with --owner USERNAME."
        )
    return existing.owner


class Command(BaseCommand):
    help = (
        "Import PATH (a CHARTOM-layout folder, a .zip of one, or a manifest.csv/.json) into a chart "
        "set. Importing again updates the set in place; with any problem nothing is imported and "
        "every problem is printed with its file and row."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="Folder, .zip or manifest file")
        parser.add_argument(
            "--set", dest="slug", help="Slug of the chart set (default: from PATH's name)"
        )
        parser.add_argument("--title", help="Title of the chart set")
        parser.add_argument(
            "--owner", help="Username of the owning researcher (needed for a new set)"
        )
        parser.add_argument(
            "--prune", action="store_true", help="Remove pairs of the set that are not in PATH"
        )

    def handle(self, *args, path, slug=None, title=None, owner=None, prune=False, **options):
        source = Path(path)
        if not source.exists():
            raise CommandError(f"{path}: no such file or folder.")
        stem = source.name.rsplit(".", 1)[0] if source.is_file() else source.name
        slug = slug or slugify(title or stem)
        owner_user = resolve_owner(owner, slug)
        try:
            result = chartset_import(
                owner=owner_user,
                source=source,
                slug=slug,
                title=title,
                prune=prune,
                source_name=source.name,
            )
        except ImportRejected as rejected:
            for problem in rejected.problems:
                self.stderr.write(str(problem))
            raise CommandError(
                f"{len(rejected.problems)} problem(s) in {path}; nothing was imported."
            ) from None
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        data = result.as_dict()
        self.stdout.write(
            self.style.SUCCESS(
                f"{data['pairs']} pairs ({data['charts']} charts) in chart set "
                f"“{result.chart_set.title}” ({result.chart_set.slug}): "
                f"{len(data['created'])} new, {len(data['updated'])} updated, "
                f"{len(data['unchanged'])} unchanged, {len(data['removed'])} removed, "
                f"{len(data['kept'])} kept; {data['files_written']} image files written "
                f"in {data['seconds']:.2f} s."
            )
        )
        if data["new_manipulations"]:
            self.stdout.write("New manipulation types: " + ", ".join(data["new_manipulations"]))
