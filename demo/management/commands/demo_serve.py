"""What `make demo` runs once the packages are installed: migrate, load, print, serve.

One process does all four because setting Django up (numpy, pandas, scipy, matplotlib
come in with the job handlers) takes seconds each time; four processes and
runserver's reloader paid it five times over. Each phase says what it is doing, so a
long first run is never silent. The server runs without the autoreloader: the demo
serves a checkout, it does not watch one being edited (`manage.py runserver` does).
"""

import time

from django.core.management import call_command
from django.core.management.base import BaseCommand

from demo.management.commands.demo_info import served_url_file


class Command(BaseCommand):
    help = (
        "Migrate, load the demo data, print the logins and serve the demo (what `make demo` runs)."
    )

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")

    def handle(self, *args, addrport, **options):
        self._phase("Migrating the database ...")
        call_command("migrate", interactive=False, verbosity=0)
        self._phase("Loading demo data (the first run renders charts and fits models: 1-2 min) ...")
        call_command("load_demo", stdout=self.stdout)
        host, _, port = addrport.rpartition(":")
        base_url = f"http://{host}:{port}"
        served_url_file().write_text(base_url + "\n")
        self.stdout.write(f"\n  Chartroom demo is starting on {base_url}/")
        call_command("demo_info", base_url=base_url, stdout=self.stdout)
        self.stdout.write("")
        self._phase("Starting the web server (Ctrl-C stops it) ...")
        call_command("runserver", addrport, use_reloader=False)

    def _phase(self, text: str) -> None:
        self._started = getattr(self, "_started", time.perf_counter())
        elapsed = time.perf_counter() - self._started
        self.stdout.write(self.style.MIGRATE_HEADING(f"[{elapsed:5.1f} s] {text}"))
