"""Export a survey's responses: `manage.py export_responses SLUG --format csv|xlsx|spss|stata --output FILE`,
filtered with ``--status``, ``--district``, ``--school``, ``--completed-from`` and ``--completed-to``
(exports/filters.py: the same filter, and the same checks, as the staff area's)."""
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.audit import Action, audit_record
from accounts.scopes import COMMAND_LINE
from exports.filters import PARTS, STATUSES, ExportFilter, ExportFilterError, export_filter_make
from exports.options import FORMATS, MULTIPLE_LAYOUTS, RESPONDENT_COLUMNS, ExportError, ExportOptions
from exports.variables import ROSTER_FIELDS
from exports.writers import DATA_SUFFIXES, export_write, responses_write_csv
from infra.db_router import read_from_master, replica_alias
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
        filtering = parser.add_argument_group(
            "filter", "Which respondents (exports/filters.py). Each option may be repeated or take several codes "
                      "separated by commas or spaces; the parts are joined by 'and', the choices of one part by 'or'.")
        filtering.add_argument("--status", action="append", default=[], metavar="STATUS",
                               help=f"One of {', '.join(STATUSES)} (withdrawn: only the withdrawn; the others: "
                                    f"only those not withdrawn).")
        filtering.add_argument("--district", action="append", default=[], metavar="CODE",
                               help="A district's code: its schools.")
        filtering.add_argument("--school", action="append", default=[], metavar="CODE", help="A school's code.")
        filtering.add_argument("--completed-from", metavar="YYYY-MM-DD",
                               help="Completed on this day or later (days in TIME_ZONE).")
        filtering.add_argument("--completed-to", metavar="YYYY-MM-DD",
                               help="Completed on this day or earlier (the whole day, in TIME_ZONE).")
        parser.add_argument("--deidentified", action="store_true",
                            help="Drop what identifies a person, leave out small schools (EXPORT_SMALL_SCHOOL_MIN), "
                                 "shuffle the rows and write times as days.")

    def handle(self, *, survey_slug: str, output: str, format: str, labels: bool, multiple: str,
               roster_fields: str, deidentified: bool, status: list[str], district: list[str], school: list[str],
               completed_from: str | None, completed_to: str | None, **options: Any) -> None:
        fields = tuple(field.strip() for field in roster_fields.split(",") if field.strip())
        try:
            export_options = ExportOptions(labels=labels, multiple=multiple, roster_fields=fields,
                                           deidentified=deidentified)
        except ExportError as error:
            raise CommandError(str(error)) from None
        try:
            export_filter = export_filter_make(scope=COMMAND_LINE, statuses=status, districts=district,
                                               schools=school, completed_from=completed_from,
                                               completed_to=completed_to, deidentified=deidentified)
        except ExportFilterError as error:
            raise CommandError("The filter will not do:\n" + "\n".join(
                f"  {PARTS.get(problem.part, 'filter')}: {problem.message}" for problem in error.problems)) from None
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
            count = responses_write_csv(survey=survey, stream=sys.stdout, using=using, options=export_options,
                                        export_filter=export_filter)
            self._audit(survey, format, export_options, export_filter, count, "standard output")
            self.stderr.write(f"Exported {count} respondents of '{survey.slug}' (read from '{using}').")
            return
        try:
            result = export_write(survey=survey, format=format, options=export_options, directory=target.parent,
                                  using=using, stem=target.stem, export_filter=export_filter)
        except ExportError as error:
            raise CommandError(str(error)) from None
        self._audit(survey, format, export_options, export_filter, result.respondent_count, str(target))
        self.stderr.write(
            f"Exported {result.respondent_count} respondents of '{survey.slug}' ({export_filter.describe()}; "
            f"read from '{using}'): "
            f"{', '.join(str(path) for path in result.files)}."
            + (f" Left out {result.suppressed_respondents} respondents of {result.suppressed_schools} small "
               f"school(s)." if deidentified else ""))

    def _audit(self, survey: Survey, format: str, options: ExportOptions, export_filter: ExportFilter, count: int,
               where: str) -> None:
        """Every export is in the audit log: those of the command line too."""
        with read_from_master():
            audit_record(scope=COMMAND_LINE, action=Action.EXPORT_DOWNLOADED, survey=survey,
                         detail=f"export_responses {format}: {options.describe()}; filter: {export_filter.describe()} "
                                f"[{export_filter.as_options() or 'none'}]; {count} respondents to {where}")
