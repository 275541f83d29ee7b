"""Fields that the forms of several screens share."""
from typing import Any

from django import forms

# The largest row id (a bigint column): a larger number in a URL or a form is no row's, and SQLite raises
# OverflowError on it (PostgreSQL a DataError) where a lookup would otherwise find nothing.
ROW_ID_MAX = 2 ** 63 - 1


def row_id(text: str) -> int | None:
    """Return ``text`` as a row id, or None when it cannot be one (not ASCII digits, or beyond ROW_ID_MAX)."""
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(ROW_ID_MAX))):
        return None
    number = int(text)
    return number if number <= ROW_ID_MAX else None


class IdsField(forms.TypedMultipleChoiceField):
    """Ids ticked in a list whose choices are not known here: any row id passes; the service keeps only those
    in the staff member's scope."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(coerce=int, choices=(), **kwargs)

    def valid_value(self, value: object) -> bool:
        return row_id(str(value)) is not None
