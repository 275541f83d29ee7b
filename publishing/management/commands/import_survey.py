"""Load a survey: manage.py import_survey FILE [--dry-run] [--publish] [--new-version] (JSON or an XLSForm .xlsx).

It lives in publishing because a new version of a survey must know which
questions have answers (``publishing.services.survey_revise``).
"""
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.scopes import COMMAND_LINE
from publishing.services import survey_import, survey_revise
from surveys.documents import DocumentError
from surveys.services import document_check


class Command(BaseCommand):
    help = ("Load a survey from our JSON document (.json) or an XLSForm workbook (.xlsx: sheets survey, choices, "
            "settings; only survey is required). Columns and features that change nothing asked or stored are ignored "
            "with a warning, printed. A file with any problem writes nothing: every problem is printed (by sheet, row and column "
            "for a workbook) and the exit status is 1. A workbook makes a draft unless --publish. --new-version "
            "revises the survey of the same slug (form_id) for everyone taking it, refusing what would strand "
            "saved answers.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the survey, .json or .xlsx")
        parser.add_argument("--dry-run", action="store_true", help="check it; write nothing")
        parser.add_argument("--publish", action="store_true",
                            help="open it to respondents (every text must be in every language)")
        parser.add_argument("--new-version", action="store_true",
                            help="revise the existing survey of the same slug: its next version")

    def handle(self, *, file: str, dry_run: bool, publish: bool, new_version: bool, **options: Any) -> None:
        try:
            with open(file, "rb") as source:
                if dry_run:
                    checked = document_check(source=source, filename=file)
                elif new_version:
                    survey = survey_revise(scope=COMMAND_LINE, source=source, filename=file)
                else:
                    survey = survey_import(scope=COMMAND_LINE, source=source, filename=file, publish=publish)
        except FileNotFoundError as error:
            raise CommandError(f"No file {file}.") from error
        except DocumentError as error:
            for problem in error.problems:
                self.stderr.write(f"  {problem}")
            count = len(error.problems)
            raise CommandError(f"{file}: {count} problem{'s' if count > 1 else ''}; nothing was written.") from error
        for warning in checked["warnings"] if dry_run else survey.load_warnings:
            self.stdout.write(f"  warning: {warning}")
        if dry_run:
            questions = sum(len(q["rows"]) or 1 for page in checked["pages"] for q in page["questions"])
            self.stdout.write(f"{file}: '{checked['slug']}', {len(checked['pages'])} pages, {questions} questions, "
                              f"languages {', '.join(checked['languages'])}. Dry run: nothing was written.")
            return
        made = f"version {survey.version} of" if new_version else "created"
        self.stdout.write(f"{file}: {made} '{survey.slug}' ({survey.get_status_display().lower()}), "
                          f"{survey.pages.count()} pages, languages {', '.join(survey.languages)}.")
