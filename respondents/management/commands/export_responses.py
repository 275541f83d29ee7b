"""Export a survey's responses: `manage.py export_responses SLUG --format csv|xlsx --output FILE`."""
import sys

from django.core.management.base import BaseCommand, CommandError

from config.db_router import replica_alias
from respondents.exports import responses_write_csv, responses_write_xlsx
from surveys.models import Survey


class Command(BaseCommand):
    help = "Write one row per respondent and one column per question code (see respondents/exports.py)."

    def add_arguments(self, parser):
        parser.add_argument("survey_slug")
        parser.add_argument("--format", choices=["csv", "xlsx"], default="csv")
        parser.add_argument("--output", default="-", help="File to write, or - for standard output (default).")

    def handle(self, *, survey_slug, output, format, **options):
        # A long read: from a replica when one is up and current, else the master.
        using = replica_alias()
        survey = Survey.objects.using(using).filter(slug=survey_slug).first()
        if survey is None:
            raise CommandError(f"No survey with the slug '{survey_slug}'.")
        if format == "xlsx":
            if output == "-":
                raise CommandError("An XLSX export needs --output FILE.")
            count = responses_write_xlsx(survey=survey, path=output, using=using)
        elif output == "-":
            count = responses_write_csv(survey=survey, stream=sys.stdout, using=using)
        else:
            with open(output, "w", newline="", encoding="utf-8") as stream:
                count = responses_write_csv(survey=survey, stream=stream, using=using)
        self.stderr.write(f"Exported {count} respondents of '{survey.slug}' (read from '{using}').")
