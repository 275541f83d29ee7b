"""Grades in the order staff read them: PK, TK, K, 1 to 12 as numbers, any other grade in a natural order, none last.

Rosters keep a grade as they wrote it ("K", "k", "07", "7", "Grade 7"): ``grade_sort_key`` reads the text for
its place and never changes it. Every list of grades on the staff side sorts with it; a query over many rows
ranks its grades with ``grade_order`` (the distinct grades sorted here, a few).
"""
import re
from collections.abc import Iterable

from django.db.models import Case, IntegerField, Value, When

# Groups, in order: before kindergarten, transitional kindergarten, kindergarten, grades 1 to 12, other, none.
_PRE_K, _TK, _K, _NUMBERED, _OTHER, _NONE = range(6)
_WORDS = {
    "pk": _PRE_K, "prek": _PRE_K, "pre-k": _PRE_K, "pre k": _PRE_K, "prekindergarten": _PRE_K,
    "pre-kindergarten": _PRE_K, "pre kindergarten": _PRE_K, "preschool": _PRE_K, "pre-school": _PRE_K,
    "tk": _TK, "transitional kindergarten": _TK,
    "k": _K, "kg": _K, "kinder": _K, "kindergarten": _K,
}
# "Grade 7", "gr. 7", "7th", "7th grade", "07": the number; the same words around K ("Grade K").
_AROUND = re.compile(r"^(?:grade|gr\.?)?\s*(?P<core>.*?)\s*(?:grade)?$")
_NUMBER = re.compile(r"^0*(?P<number>\d{1,3})(?:st|nd|rd|th)?$")
_DIGITS = re.compile(r"(\d+)")

GradeKey = tuple[int, int, tuple[tuple[int, int, str], ...], str, str]


def grade_sort_key(grade: str) -> GradeKey:
    """Return the key that sorts ``grade`` (as a roster wrote it) among others: PK, TK, K, 1..12 as numbers
    ("07" as 7, "Grade 7" as 7), then any other text in a natural order ("Adult 2" before "Adult 10"), the
    blank grade last; grades read as the same one ("7", "07") by their text."""
    text = " ".join(grade.split()).casefold()
    if not text:
        return (_NONE, 0, (), "", grade)
    around = _AROUND.fullmatch(text)
    core = around["core"] if around and around["core"] else text  # "grade" alone is a word, not a prefix
    if core in _WORDS:
        return (_WORDS[core], 0, (), text, grade)
    number = _NUMBER.fullmatch(core)
    if number and 1 <= int(number["number"]) <= 12:
        return (_NUMBERED, int(number["number"]), (), text, grade)
    natural = tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                    for part in _DIGITS.split(text) if part)
    return (_OTHER, 0, natural, text, grade)


def grades_sorted(grades: Iterable[str]) -> list[str]:
    """Return ``grades`` (each once) in grade order (``grade_sort_key``)."""
    return sorted(set(grades), key=grade_sort_key)


def grade_order(grades: Iterable[str], *, field: str = "grade") -> Case:
    """An expression of each row's place in grade order, for ``order_by``: ``grades`` are the distinct grades of
    the rows (their ``field``), a short list sorted in Python, so the order is ``grade_sort_key``'s in SQL too.
    A grade not in ``grades`` comes last."""
    # The blank grade always has its WHEN: a CASE of none would be a bare constant, which PostgreSQL reads in an
    # ORDER BY as a column's position.
    ranked = grades_sorted([*grades, ""])
    return Case(*(When(**{field: grade}, then=Value(rank)) for rank, grade in enumerate(ranked)),
                default=Value(len(ranked)), output_field=IntegerField())
