"""The bench survey: shaped like the state-wide one (pages of five answerable questions, every kind that takes
an answer), with or without skip logic."""
from typing import Required, TypedDict

from surveys.documents import ChoiceDocument, SurveyDocument

AGREE: list[ChoiceDocument] = [{"value": str(n), "label": label} for n, label in
         enumerate(["Strongly disagree", "Disagree", "Agree", "Strongly agree"], start=1)]
OFTEN: list[ChoiceDocument] = [{"value": str(n), "label": label} for n, label in
         enumerate(["Never", "Rarely", "Sometimes", "Often", "Always"], start=1)]


class LastQuestion(TypedDict, total=False):
    """A page's last question, but for its code (a QuestionDocument's keys)."""

    kind: Required[str]
    prompt: Required[str]
    min: int
    max: int
    max_length: int


# The last answerable question of a page rotates through the other kinds.
LAST_QUESTION: list[LastQuestion] = [
    {"kind": "integer", "prompt": "About how many hours a week do you spend on homework?", "min": 0, "max": 60},
    {"kind": "short_text", "prompt": "In a few words, what would make this better?", "max_length": 120},
    {"kind": "date", "prompt": "About when did this last happen?"},
    {"kind": "long_text", "prompt": "Is there anything else you want to tell us?", "max_length": 1000},
    {"kind": "decimal", "prompt": "About how many hours do you sleep on a school night?", "min": 0, "max": 24},
    {"kind": "time", "prompt": "About when do you go to bed on a school night?"},
    {"kind": "datetime", "prompt": "When did you last use the school library?"},
]


def bench_document(*, slug: str, pages: int, conditions: bool = False) -> SurveyDocument:
    """Return a survey document of ``pages`` pages with five answerable questions each, every kind present.

    With ``conditions`` the same survey carries skip logic and constraints
    shaped like a real one's (pages for some respondents only, decided by an
    answer on the first page, as a role would; follow-up questions decided on
    their own page) that hold for every answer the load plan gives (it answers
    every question it sees), so the same requests and answers meet rules that
    are evaluated on each of them: every page after the first is shown if the
    first page's single choice was answered (every third page: if it is one of
    its five values), each page's last question if its single choice is one
    of its five values, a grid's second row if its first was answered, and the
    integer questions carry a constraint. ``make bench`` compares the two in
    one run.
    """
    document: SurveyDocument = {
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
    if conditions:
        _add_conditions(document)
    return document


def _add_conditions(document: SurveyDocument) -> None:
    for n, page in enumerate(document["pages"], start=1):
        if n > 1:
            page["show_if"] = ({"op": "in", "q": "p1_single", "values": [c["value"] for c in OFTEN]} if n % 3 == 0
                               else {"op": "answered", "q": "p1_single"})
        single, _, grid, last = page["questions"]
        last["show_if"] = {"op": "in", "q": single["code"], "values": [c["value"] for c in OFTEN]}
        grid["rows"][1]["show_if"] = {"op": "answered", "q": grid["rows"][0]["code"]}
        if last["kind"] in ("integer", "decimal"):
            last["constraint"] = {"op": "le", "q": ".", "value": last["max"]}
            last["constraint_message"] = "That is more hours than a week of homework could take."
