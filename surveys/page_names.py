"""The pages of a survey's definition as staff see them, everywhere on the staff screens: "Page 5 — Your teaching",
a page with a ``show_if`` marked, its condition in words (docs/architecture.md, "Completion monitoring")."""
from collections.abc import Mapping
from dataclasses import dataclass

from surveys.models import Survey
from surveys.rules import rule_describe
from surveys.selectors import survey_flow, survey_pages


@dataclass(frozen=True)
class PageName:
    """A page of the survey's definition as staff see it: its number and title, and when it is shown."""

    number: int
    title: str = ""
    # The page's show_if in words, to follow "if" ("you chose “Teacher” for “Your role”"); "" when it always
    # applies.
    shown_if: str = ""

    def __str__(self) -> str:
        return f"Page {self.number} — {self.title}" if self.title else f"Page {self.number}"

    @property
    def conditional(self) -> bool:
        return bool(self.shown_if)

    @property
    def label(self) -> str:
        """The name, marked for a page that only some respondents see."""
        return f"{self} (conditional)" if self.shown_if else str(self)


def page_names(*, survey: Survey) -> dict[int, PageName]:
    """Return ``{number: PageName}`` of every page of ``survey``'s definition (the definition cache's rows)."""
    pages = survey_pages(survey=survey)
    shown_if: dict[int, str] = {}
    if any(page.show_if is not None for page in pages):
        flow = survey_flow(survey=survey)
        prompts, choice_labels = flow.texts(survey.default_language)
        shown_if = {number: rule_describe(rule, prompts=prompts, choice_labels=choice_labels)
                    for number, rule in flow.page_rules.items()}
    return {page.position: PageName(page.position, page.title, shown_if.get(page.position, "")) for page in pages}


def page_name(names: Mapping[int, PageName], number: int) -> PageName:
    """The PageName of page ``number`` in ``names`` (``page_names``); a page the definition no longer has is
    named by its number."""
    return names.get(number) or PageName(number)
