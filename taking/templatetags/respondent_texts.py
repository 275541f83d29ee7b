"""``{{ survey|translated:"title" }}``: a definition's text in the respondent's language (``Translated.translated``)."""
from typing import Protocol

from django import template

register = template.Library()


class _Texts(Protocol):
    """A definition row (``surveys.models.Translated``) or a page definition's copy of one."""

    def translated(self, field: str, language: str | None = None) -> str: ...


@register.filter
def translated(row: _Texts | None, field: str) -> str:
    return row.translated(field) if row else ""
