"""The respondent interface's Spanish catalogue (config/locale): complete, compiled, and holding every string."""
import os
import shutil
from io import StringIO
from pathlib import Path

import polib
import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "config" / "locale" / "es" / "LC_MESSAGES"


def test_every_string_of_the_spanish_catalogue_is_translated_and_none_is_fuzzy():
    po = polib.pofile(str(CATALOGUE / "django.po"))
    assert len(po) > 100
    assert not po.untranslated_entries() and not po.fuzzy_entries()
    for entry in po:
        for text in (entry.msgstr_plural or {0: entry.msgstr}).values():
            # Placeholders are kept: a translation that drops one breaks the page.
            for name in ("%(number)s", "%(count)s", "%(condition)s", "%(minutes)s", "%(seconds)s", "%(status)s"):
                assert (name in entry.msgid) == (name in text) or entry.msgid_plural, (entry.msgid, text)


def test_the_compiled_catalogue_holds_what_the_po_file_says():
    po = polib.pofile(str(CATALOGUE / "django.po"))
    mo = polib.mofile(str(CATALOGUE / "django.mo"))
    compiled = {(e.msgid, e.msgid_plural): (e.msgstr, tuple(sorted(e.msgstr_plural.items()))) for e in mo if e.msgid}
    written = {(e.msgid, e.msgid_plural): (e.msgstr, tuple(sorted(e.msgstr_plural.items()))) for e in po}
    assert compiled == written, "run make messages: the .mo is older than the .po"


def test_the_catalogue_holds_every_string_the_interface_marks():
    """makemessages over the code finds no string the catalogue lacks (run `make messages` when this fails)."""
    if not shutil.which("xgettext"):
        if os.environ.get("CI"):
            pytest.fail("xgettext is missing; .ci/run installs Debian's gettext package")
        pytest.skip("xgettext is not installed (apt-get install gettext)")
    call_command("respondent_messages", "--check", stdout=StringIO())
