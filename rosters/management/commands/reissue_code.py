"""A new access code for a lost slip: manage.py reissue_code SURVEY_SLUG EXTERNAL_ID."""
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.scopes import COMMAND_LINE
from infra.db_router import read_from_master
from respondents import access_codes
from respondents.models import Respondent
from rosters.services import respondent_reissue_code


class Command(BaseCommand):
    help = ("Give a respondent a new access code and print it. The old code stops working at once (a session "
            "that used it ends); answers and progress are kept.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("survey", help="the survey's slug")
        parser.add_argument("external_id", help="the respondent's id in the roster")

    def handle(self, *, survey: str, external_id: str, **options: Any) -> None:
        with read_from_master():
            respondent = Respondent.objects.filter(survey__slug=survey, external_id=external_id).first()
            if respondent is None:
                raise CommandError(f"No respondent '{external_id}' in the survey '{survey}'.")
            code = respondent_reissue_code(scope=COMMAND_LINE, respondent_id=respondent.pk)
        self.stdout.write(access_codes.format_code(code))
