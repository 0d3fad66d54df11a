"""`manage.py import_captions PROJECT FILE`: import a caption file, creating the project if needed."""

from contextlib import ExitStack
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Project
from annotation.services import ImportRejected, captions_import, project_create
from core.models import User


class Command(BaseCommand):
    help = (
        "Import captions (CHOCOLATE JSON, JSON Lines or CSV) into the project with slug PROJECT. "
        "A missing project is created with the default guidelines and categories."
    )

    def add_arguments(self, parser):
        parser.add_argument("project", help="The project's slug.")
        parser.add_argument("file", help="A .json, .jsonl or .csv file of captions.")
        parser.add_argument("--images", help="A zip of chart images matched by file name.")
        parser.add_argument(
            "--format", choices=["json", "jsonl", "csv"], help="Override the format guess."
        )
        parser.add_argument(
            "--owner",
            help="Researcher who owns a project this creates (default: the first researcher).",
        )
        parser.add_argument("--title", help="Title of a project this creates (default: the slug).")

    def handle(self, *args, project, file, images, format, owner, title, **options):
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"{file}: no such file.")
        if images and not Path(images).is_file():
            raise CommandError(f"{images}: no such file.")

        target = Project.objects.filter(slug=project).first()
        if target is None:
            target = project_create(owner=self._owner(owner), title=title or project, slug=project)
            self.stdout.write(f"Created project {project!r} owned by {target.owner.username}.")
        elif owner and target.owner.username != owner:
            self.stderr.write(
                f"Project {project!r} exists and belongs to {target.owner.username}; "
                "--owner is ignored."
            )
        try:
            # Both files open, not read: the import streams them.
            with path.open("rb") as data, ExitStack() as stack:
                result = captions_import(
                    project=target,
                    data=data,
                    filename=path.name,
                    images=stack.enter_context(Path(images).open("rb")) if images else None,
                    images_filename=Path(images).name if images else "",
                    format=format,
                )
        except ImportRejected as exc:
            lines = [f"{path.name} was not imported ({len(exc.problems)} problems):"]
            lines += [f"  {problem}" for problem in exc.problems[:100]]
            if len(exc.problems) > 100:
                lines.append(f"  ... and {len(exc.problems) - 100} more.")
            lines.append("Nothing was imported. Fix the file and run the command again.")
            raise CommandError("\n".join(lines)) from None
        self.stdout.write(self.style.SUCCESS(result.summary()))
        for key, numbers in result.duplicates.items():
            self.stdout.write(f"  duplicated _id {key}: records {', '.join(map(str, numbers))}")

    def _owner(self, username):
        researchers = User.objects.filter(role=User.Role.RESEARCHER)
        if username:
            user = researchers.filter(username=username).first()
            if user is None:
                raise CommandError(
                    f"No researcher called {username!r}. Create one with "
                    f"`python manage.py createresearcher {username}`."
                )
            return user
        user = researchers.order_by("date_joined", "pk").first()
        if user is None:
            raise CommandError(
                "The project does not exist and there is no researcher to own it. Create one "
                "with `python manage.py createresearcher NAME`, or pass --owner NAME."
            )
        return user
