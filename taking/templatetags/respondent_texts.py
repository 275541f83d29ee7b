"""``{{ survey|translated:"title" }}``: a definition's text in the respondent's language (``Translated.translated``)."""
from django import template

register = template.Library()


@register.filter
def translated(row, field):
    return row.translated(field) if row else ""
