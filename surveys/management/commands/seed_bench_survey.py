"""Create a survey shaped like the state-wide one, for load tests: `seed_bench_survey --pages 20`."""
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from config.db_router import read_from_master
from surveys.documents import DocumentError
from surveys.services import survey_create

AGREE = [{"value": str(n), "label": label} for n, label in
         enumerate(["Strongly disagree", "Disagree", "Agree", "Strongly agree"], start=1)]
OFTEN = [{"value": str(n), "label": label} for n, label in
         enumerate(["Never", "Rarely", "Sometimes", "Often", "Always"], start=1)]
# The last answerable question of a page rotates through the other kinds.
LAST_QUESTION = [
    {"kind": "integer", "prompt": "About how many hours a week do you spend on homework?", "min": 0, "max": 60},
    {"kind": "short_text", "prompt": "In a few words, what would make this better?", "max_length": 120},
    {"kind": "date", "prompt": "About when did this last happen?"},
    {"kind": "long_text", "prompt": "Is there anything else you want to tell us?", "max_length": 1000},
]


def bench_document(*, slug, pages):
    """Return a survey document of ``pages`` pages with five answerable questions each, every kind present."""
    return {
        "slug": slug,
        "title": f"Load-test survey ({pages} pages)",
        "status": "open",
        "choice_lists": {"agree": AGREE, "often": OFTEN},
        "pages": [
            {"title": f"Section {n}", "questions": [
                {"code": f"p{n}_single", "kind": "single", "prompt": f"How often is section {n} true for you?",
                 "choices": "often", "required": True},
                {"code": f"p{n}_multi", "kind": "multiple", "prompt": "Which of these apply? Choose all that do.",
                 "choices": [{"value": v, "label": v.title()} for v in ("class", "home", "online", "library")]},
                {"code": f"p{n}_grid", "kind": "grid", "prompt": "How much do you agree?", "choices": "agree", "rows": [
                    {"code": f"p{n}_row1", "prompt": "Adults here listen to students."},
                    {"code": f"p{n}_row2", "prompt": "I feel I belong here."}]},
                {"code": f"p{n}_last", **LAST_QUESTION[n % len(LAST_QUESTION)]},
            ]}
            for n in range(1, pages + 1)
        ],
    }


class Command(BaseCommand):
    help = "Create an open survey of N pages of 5 answerable questions (every kind) and print its slug."

    def add_arguments(self, parser):
        parser.add_argument("--pages", type=int, default=20)
        parser.add_argument("--slug", help="Default: bench-<date-time>.")

    def handle(self, *, pages, slug, **options):
        if pages < 1:
            raise CommandError("--pages must be at least 1.")
        slug = slug or f"bench-{timezone.now():%Y%m%d-%H%M%S}"
        try:
            with read_from_master():
                survey = survey_create(document=bench_document(slug=slug, pages=pages))
        except DocumentError as error:
            raise CommandError("; ".join(error.problems)) from error
        self.stdout.write(survey.slug)
