"""Extract the respondent interface's strings into its catalogues and compile them: `manage.py respondent_messages`.

The catalogue is config/locale (``LOCALE_PATHS``); the staff area, the
tools and the tests are left out (the staff area is in English). The .mo files
are committed, so that `make demo` needs no gettext (msgfmt compiles them
here); `--check` only says
whether the catalogue lacks a string the code marks (taking/tests/test_translations.py).
"""
import shutil
import tempfile
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

LANGUAGES = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
# Staff-side apps and tools (English only); the respondent's interface is taking/, surveys/ and config/.
IGNORED = ["staff", "respondents", "accounts", "publishing", "rosters", "exports", "monitoring", "demo", "bench",
           "fileformats", "jmeter", "deploy", "docs", "node_modules", ".venv", ".stack", "*/tests",
           "conftest.py", "config/locale", "static", "media"]


class Command(BaseCommand):
    help = "Extract the respondent interface's strings into config/locale and compile them (needs gettext)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--check", action="store_true",
                            help="Change nothing: fail if the catalogue lacks a string the code marks.")

    def handle(self, *, check: bool, **options: Any) -> None:
        catalogue = Path(settings.LOCALE_PATHS[0])
        if not check:
            self.extract(catalogue)
            call_command("compilemessages", locale=LANGUAGES, ignore_patterns=[".venv", "node_modules", ".stack", ".git"],
                         verbosity=0)
            return
        import polib  # a test and development tool (requirements-dev.txt)

        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch) / "locale"
            shutil.copytree(catalogue, copy)
            self.extract(copy)
            for language in LANGUAGES:
                path = f"{language}/LC_MESSAGES/django.po"
                before = {e.msgid for e in polib.pofile(str(catalogue / path))}
                new = {e.msgid for e in polib.pofile(str(copy / path))} - before
                if new:
                    raise CommandError(f"{len(new)} strings are not in config/locale/{path} (run make messages, "
                                       f"then translate them): " + "; ".join(sorted(new)[:10]))
        self.stdout.write("The catalogues hold every string the respondent interface marks.")

    def extract(self, catalogue: Path) -> None:
        patterns = [pattern for name in IGNORED for pattern in (name, f"{name}/*")]
        with override_settings(LOCALE_PATHS=[str(catalogue)]):
            call_command("makemessages", locale=LANGUAGES, no_location=True, no_obsolete=True,
                         ignore_patterns=patterns, verbosity=0)
