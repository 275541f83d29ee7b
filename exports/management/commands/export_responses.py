"""Export a survey's responses: `manage.py export_responses SLUG --format csv|xlsx|spss|stata --output FILE`."""
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.audit import Action, audit_record
from accounts.scopes import COMMAND_LINE
from config.db_router import read_from_master, replica_alias
from exports.variables import ROSTER_FIELDS
from exports.writers import (
    DATA_SUFFIXES,
    FORMATS,
    MULTIPLE_LAYOUTS,
    RESPONDENT_COLUMNS,
    ExportError,
    ExportOptions,
    export_write,
    responses_write_csv,
)
from surveys.models import Survey


class Command(BaseCommand):
    help = (
        "Write one row per respondent and one column per question code (see exports/writers.py). "
        "--output names the data file: .csv for csv, .xlsx for xlsx, .dat for spss and stata (tab-separated, "
        "texts escaped: no spreadsheet runs it). Beside it go the codebook (<stem>-codebook.xlsx) and, for spss "
        "and stata, the syntax that reads the data file (<stem>.sps, <stem>.do). "
        "csv may go to standard output with --output - (the default): then the data only, no codebook."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("survey_slug")
        parser.add_argument("--format", choices=FORMATS, default="csv")
        parser.add_argument("--output", default="-",
                            help="The data file to write, or - for standard output (csv only; no codebook).")
        parser.add_argument("--labels", action="store_true",
                            help="Choice labels instead of values (csv, xlsx; spss and stata label in the syntax).")
        parser.add_argument("--multiple", choices=MULTIPLE_LAYOUTS, default="joined",
                            help="Multiple choice as one column of values (joined) or one 0/1 column per choice.")
        parser.add_argument("--roster-fields", default=",".join(RESPONDENT_COLUMNS),
                            help=f"Comma-separated, from: {', '.join(ROSTER_FIELDS)}. Empty for none.")
        parser.add_argument("--deidentified", action="store_true",
                            help="Drop what identifies a person, leave out small schools (EXPORT_SMALL_SCHOOL_MIN), "
                                 "shuffle the rows and write times as days.")

    def handle(self, *, survey_slug: str, output: str, format: str, labels: bool, multiple: str,
               roster_fields: str, deidentified: bool, **options: Any) -> None:
        fields = tuple(field.strip() for field in roster_fields.split(",") if field.strip())
        try:
            export_options = ExportOptions(labels=labels, multiple=multiple, roster_fields=fields,
                                           deidentified=deidentified)
        except ExportError as error:
            raise CommandError(str(error)) from None
        if output == "-" and format != "csv":
            raise CommandError(f"An {format} export needs --output FILE (its files go beside it).")
        if output != "-":
            target = Path(output)
            if target.suffix.lower() != DATA_SUFFIXES[format]:
                raise CommandError(f"A {format} export's --output is its data file, ending {DATA_SUFFIXES[format]}.")
            if not target.parent.is_dir():
                raise CommandError(f"No directory {target.parent} to write {target.name} in.")

        # A long read: from a replica when one is up and current, else the master.
        using = replica_alias()
        survey = Survey.objects.using(using).filter(slug=survey_slug).first()
        if survey is None:
            raise CommandError(f"No survey with the slug '{survey_slug}'.")
        if output == "-":
            count = responses_write_csv(survey=survey, stream=sys.stdout, using=using, options=export_options)
            self._audit(survey, format, export_options, count, "standard output")
            self.stderr.write(f"Exported {count} respondents of '{survey.slug}' (read from '{using}').")
            return
        try:
            result = export_write(survey=survey, format=format, options=export_options, directory=target.parent,
                                  using=using, stem=target.stem)
        except ExportError as error:
            raise CommandError(str(error)) from None
        self._audit(survey, format, export_options, result.respondent_count, str(target))
        self.stderr.write(
            f"Exported {result.respondent_count} respondents of '{survey.slug}' (read from '{using}'): "
            f"{', '.join(str(path) for path in result.files)}."
            + (f" Left out {result.suppressed_respondents} respondents of {result.suppressed_schools} small "
               f"school(s)." if deidentified else ""))

    def _audit(self, survey: Survey, format: str, options: ExportOptions, count: int, where: str) -> None:
        """Every export is in the audit log: those of the command line too."""
        with read_from_master():
            audit_record(scope=COMMAND_LINE, action=Action.EXPORT_DOWNLOADED, survey=survey,
                         detail=f"export_responses {format}: {options.describe()}; {count} respondents to {where}")
