"""Print a school's code slips: manage.py code_slips SURVEY_SLUG --school SCHOOL_CODE --output FILE.pdf."""
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.scopes import COMMAND_LINE
from infra.db_router import read_from_master
from respondents.models import School
from rosters.slips import slips_print
from surveys.models import Survey


class Command(BaseCommand):
    help = ("Write a PDF of access-code slips for one school (eight a page, a cover sheet per grade): the same "
            "slips as the staff area. The QR code opens the login page with the code filled in.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("survey", help="the survey's slug")
        parser.add_argument("--school", required=True, help="the school's code")
        parser.add_argument("--grade", help="only this grade")
        parser.add_argument("--output", required=True, help="the PDF file to write")
        parser.add_argument("--url", default=settings.SURVEY_PUBLIC_URL,
                            help="the login page's public address (default: the SURVEY_PUBLIC_URL setting)")

    def handle(self, *, survey: str, school: str, grade: str | None, output: str, url: str,
               **options: Any) -> None:
        if not url:
            raise CommandError("Give the survey's public address with --url or the SURVEY_PUBLIC_URL setting.")
        with read_from_master():
            try:
                the_survey = Survey.objects.get(slug=survey)
            except Survey.DoesNotExist:
                raise CommandError(f"No survey '{survey}'.") from None
            try:
                the_school = School.objects.get(code=school)
            except School.DoesNotExist:
                raise CommandError(f"No school '{school}' in the directory.") from None
            started = time.monotonic()
            with open(output, "wb") as stream:
                count = slips_print(scope=COMMAND_LINE, survey=the_survey, school=the_school, login_url=url,
                                    stream=stream, grade=grade, where=output)
            seconds = time.monotonic() - started
        rate = f", {count / seconds:.0f} slips/s" if count and seconds else ""
        self.stdout.write(f"{output}: {count} slips for {the_school.name} ({seconds:.1f} s{rate}).")
