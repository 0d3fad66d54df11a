# Chartroom: `make demo` runs the demo, `make test` runs the tests. Both set up what they need.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# The install stamp changes whenever a requirements file does, so a second run reuses the venv.
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | md5sum | cut -c1-12)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo demo-reset test lint format serve install migrate demo-data chromium gettext messages bench clean help

help:
	@echo "make demo   - set up everything and run the demo server on http://$(HOST):$(PORT)/"
	@echo "make demo-reset - put the demo back to its first state (demo study and participant link, annotator-new, demo projects)"
	@echo "make test   - run the test suite (SQLite and eager tasks unless DATABASE_URL/CELERY_BROKER_URL are set)"
	@echo "make lint   - ruff check and format check"
	@echo "make serve  - gunicorn + celery worker + celery beat (set DATABASE_URL and CELERY_BROKER_URL)"
	@echo "make bench  - run the benchmarks in bench/"

$(BIN)/python:
	@echo "==> Creating the virtualenv in $(VENV) ..."
	$(PYTHON) -m venv $(VENV)

# pip is quiet (no progress bars), but each phase says what it is doing and errors show.
$(STAMP): $(BIN)/python requirements.txt requirements-dev.txt
	@echo "==> Installing Python packages into $(VENV) (2-3 min on a fresh machine) ..."
	@$(BIN)/python -m pip install --quiet --upgrade pip
	@$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)
	@echo "==> Python packages installed."

install: $(STAMP) messages

# GNU gettext compiles the translations (msgfmt) and extracts messages (xgettext, used by
# makemessages and by a test); install it once from Debian's packages if it is not there.
gettext:
	@if ! command -v msgfmt >/dev/null || ! command -v xgettext >/dev/null; then \
		echo "Installing GNU gettext from Debian's packages for the translations..."; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq gettext >/dev/null; \
	fi

# The compiled catalogues Django reads (locale/<language>/LC_MESSAGES/django.mo), rebuilt from
# their .po files when these change. They are committed too, so a checkout runs without gettext.
MO_FILES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/django.po))
messages: $(MO_FILES)

locale/%.mo: locale/%.po
	@$(MAKE) --no-print-directory gettext
	msgfmt --check -o $@ $<

# Browser tests drive Debian's Chromium; install it once if it is not there.
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
		echo "Installing Chromium from Debian's packages for the browser tests..."; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium fonts-dejavu-core >/dev/null; \
	fi

migrate: install
	$(BIN)/python manage.py migrate --noinput

demo-data: migrate
	$(BIN)/python manage.py load_demo

# One process migrates, loads the demo data (skipping what is already there), prints the
# logins and serves: a second `make demo` is up in seconds (demo/management/commands/demo_serve.py).
demo: install
	@$(BIN)/python manage.py demo_serve $(HOST):$(PORT)

# The demo study and its participant link, annotator-new's qualification rounds and the demo annotation
# project go back to how `make demo` first made them; the server can keep running.
demo-reset: migrate
	$(BIN)/python manage.py demo_reset

test: install chromium gettext
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

serve: migrate
	$(BIN)/python manage.py collectstatic --noinput -v0
	@if [ -n "$$CELERY_BROKER_URL" ]; then \
		PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/honcho start -f Procfile; \
	else \
		echo "CELERY_BROKER_URL is not set: jobs run on threads of the web processes, which also sweep stale ones."; \
		PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/honcho start -f Procfile web; \
	fi

bench: install
	@for script in bench/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf var/ .pytest_cache .ruff_cache
