"""Create the demo survey and a roster of demo respondents, and print codes to try."""
import json
import secrets
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

import surveys
from accounts.models import StaffMember
from infra.db_router import read_from_master
from respondents.models import Respondent, School
from rosters.directory import schools_ensure
from rosters.services import RosterEntry, roster_create
from surveys.models import Survey
from surveys.services import survey_create

DEMO_DOCUMENT = Path(surveys.__file__).resolve().parent / "demo" / "school_climate.json"
DEMO_COORDINATOR = "demo-coordinator"
SCHOOLS = [  # district code, district name, school code, school name
    ("D-DEMO", "Demo District", "DEMO-LIN", "Lincoln Elementary"),
    ("D-DEMO", "Demo District", "DEMO-WAS", "Washington Middle"),
    ("D-DEMO", "Demo District", "DEMO-ROO", "Roosevelt High"),
]


class Command(BaseCommand):
    help = "Create the demo survey (once) and demo respondents, and print access codes that have not been used."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--respondents", type=int, default=30, help="Size of the demo roster (default 30).")
        parser.add_argument("--show", type=int, default=5, help="How many unused codes to print (default 5).")

    def handle(self, *, respondents: int, show: int, **options: Any) -> None:
        # It reads back what it has just written: never from a replica.
        with read_from_master():
            self._seed(respondents=respondents, show=show)

    def _seed(self, *, respondents: int, show: int) -> None:
        document = json.loads(DEMO_DOCUMENT.read_text())
        survey = Survey.objects.filter(slug=document["slug"]).first()
        if survey is None:
            survey = survey_create(document=document)
            self.stdout.write(f"Created the survey '{survey.title}' ({survey.pages.count()} pages).")
        unused = Respondent.objects.filter(survey=survey, status=Respondent.Status.NOT_STARTED)
        if unused.count() < show:
            count = max(respondents, show)
            schools = list(schools_ensure(SCHOOLS).values())
            entries = [
                RosterEntry(external_id=f"demo-{survey.respondents.count() + n:05d}", school=schools[n % len(schools)],
                            grade=str(6 + n % 7), role=Respondent.Role.STUDENT)
                for n in range(1, count + 1)
            ]
            roster_create(survey=survey, name="Demo roster", entries=entries)
            self.stdout.write(f"Created {count} demo respondents.")
        self.stdout.write("Access codes you can use:")
        for respondent in unused.order_by("id")[:show]:
            self.stdout.write(f"  {respondent.formatted_access_code}")
        self._demo_coordinator()

    def _demo_coordinator(self) -> None:
        """A school coordinator of the demo's first school, to try the staff area; its password is shown once."""
        User = get_user_model()
        if User.objects.filter(username=DEMO_COORDINATOR).exists():
            self.stdout.write(f"Staff area: /staff/ as {DEMO_COORDINATOR} (password shown when it was created).")
            return
        password = secrets.token_urlsafe(12)
        user = User.objects.create_user(username=DEMO_COORDINATOR, password=password)
        member = StaffMember.objects.create(user=user, role=StaffMember.Role.SCHOOL_COORDINATOR)
        member.schools.set(School.objects.filter(code=SCHOOLS[0][2]))
        self.stdout.write(f"Staff area: /staff/ as {DEMO_COORDINATOR}, password {password} "
                          f"(a school coordinator of {SCHOOLS[0][3]}).")
