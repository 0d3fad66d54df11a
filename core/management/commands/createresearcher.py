import getpass
import os

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from core.models import User


class Command(BaseCommand):
    help = "Create a researcher account (or make an existing account a researcher)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--password",
            help="The password. Without it the command asks, or reads CHARTROOM_PASSWORD with --no-input.",
        )
        parser.add_argument("--no-input", action="store_true", help="Never prompt.")

    def handle(self, *args, username, email, password, no_input, **options):
        password = password or os.environ.get("CHARTROOM_PASSWORD")
        if not password:
            if no_input:
                raise CommandError(
                    "Give --password or set CHARTROOM_PASSWORD when using --no-input."
                )
            password = getpass.getpass("Password: ")
            if password != getpass.getpass("Password (again): "):
                raise CommandError("The two passwords differ.")
        user = User.objects.filter(username=username).first()
        try:
            validate_password(password, user)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc

        if user is None:
            User.objects.create_user(
                username=username, email=email, password=password, role=User.Role.RESEARCHER
            )
            self.stdout.write(self.style.SUCCESS(f"Researcher {username!r} created."))
            return
        user.role = User.Role.RESEARCHER
        user.set_password(password)
        if email:
            user.email = email
        user.save(update_fields=["role", "password", "email"])
        self.stdout.write(
            self.style.SUCCESS(f"{username!r} is now a researcher; password updated.")
        )
