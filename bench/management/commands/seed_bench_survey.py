"""Create a survey shaped like the state-wide one, for load tests: `seed_bench_survey --pages 20`."""
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from bench.survey_document import bench_document
from infra.db_router import read_from_master
from surveys.documents import DocumentError
from surveys.services import survey_create


class Command(BaseCommand):
    help = "Create an open survey of N pages of 5 answerable questions (every kind) and print its slug."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pages", type=int, default=20)
        parser.add_argument("--slug", help="Default: bench-<date-time>.")
        parser.add_argument("--conditions", action="store_true",
                            help="The same survey with skip logic and constraints that hold for every answer.")

    def handle(self, *, pages: int, slug: str | None, conditions: bool, **options: Any) -> None:
        if pages < 1:
            raise CommandError("--pages must be at least 1.")
        slug = slug or f"bench-{timezone.now():%Y%m%d-%H%M%S}"
        try:
            with read_from_master():
                survey = survey_create(document=bench_document(slug=slug, pages=pages, conditions=conditions))
        except DocumentError as error:
            raise CommandError("; ".join(error.problems)) from error
        self.stdout.write(survey.slug)
