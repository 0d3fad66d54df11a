"""The shipped translations are complete: every string the platform's pages mark for
translation is in the German and Spanish catalogues, translated, not fuzzy, with the same
placeholders, and compiled into the .mo files Django reads."""

import gettext
import os
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from core.tests.po_catalogue import read_po

LOCALE = Path(settings.BASE_DIR) / "locale"
SHIPPED = ["de", "es"]
# The code and templates makemessages reads (the rest of the tree holds no marked strings).
SOURCES = ["annotation", "config", "core", "demo", "studies", "templates"]
PLACEHOLDER = re.compile(r"%%s|%\(\w+\)[sd]|\{\w+\}|<[^>]+>")


def catalogue(language):
    return read_po(LOCALE / language / "LC_MESSAGES" / "django.po")


@pytest.mark.parametrize("language", SHIPPED)
def test_every_string_is_translated_and_none_is_fuzzy(language):
    entries = catalogue(language)
    assert len(entries) > 300
    missing = [e.msgid for e in entries if not e.translated]
    fuzzy = [e.msgid for e in entries if "fuzzy" in e.flags]
    assert missing == [] and fuzzy == []


@pytest.mark.parametrize("language", SHIPPED)
def test_translations_keep_the_placeholders_and_markup(language):
    wrong = []
    for entry in catalogue(language):
        expected = sorted(PLACEHOLDER.findall(entry.msgid))
        for text in entry.msgstr.values():
            if sorted(PLACEHOLDER.findall(text)) != expected:
                wrong.append((entry.msgid, text))
    assert wrong == []


@pytest.mark.parametrize("language", SHIPPED)
def test_the_compiled_catalogue_matches_the_po_file(language):
    with open(LOCALE / language / "LC_MESSAGES" / "django.mo", "rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    stale = []
    for entry in catalogue(language):
        msgid = f"{entry.msgctxt}\x04{entry.msgid}" if entry.msgctxt else entry.msgid
        if entry.msgid_plural:
            got = [compiled.ngettext(msgid, entry.msgid_plural, n) for n in (1, 2)]
            ok = got == [entry.msgstr[0], entry.msgstr[1]]
        else:
            ok = compiled.gettext(msgid) == entry.msgstr[0]
        if not ok:
            stale.append(entry.msgid)
    assert stale == [], "run `make messages` (or manage.py compilemessages)"


def test_every_marked_string_in_the_code_is_in_the_catalogues(tmp_path, monkeypatch):
    # makemessages writes beside the first locale directory it finds, so it runs in a
    # directory of links to the sources and writes its catalogue there, not into locale/.
    for name in SOURCES:
        (tmp_path / name).symlink_to(Path(settings.BASE_DIR) / name)
    monkeypatch.chdir(tmp_path)
    with override_settings(LOCALE_PATHS=[tmp_path / "locale"]):
        call_command(
            "makemessages", locale=["de"], symlinks=True, verbosity=0,
            ignore_patterns=["tests", "migrations", "__pycache__"],
        )  # fmt: skip
    extracted = read_po(tmp_path / "locale" / "de" / "LC_MESSAGES" / "django.po")
    assert os.path.getsize(LOCALE / "de" / "LC_MESSAGES" / "django.po") > 0
    assert len(extracted) > 300
    for language in SHIPPED:
        known = {(e.msgctxt, e.msgid) for e in catalogue(language)}
        missing = [e.msgid for e in extracted if (e.msgctxt, e.msgid) not in known]
        assert missing == [], f"not in the {language} catalogue: {missing}"


def test_every_language_the_platform_offers_ships_a_catalogue():
    offered = {code for code, _name in settings.LANGUAGES} - {"en"}
    assert offered == set(SHIPPED)
