"""The Jinja2 environment of Django's Jinja2 backend (used for the survey page fragment).

Jinja2 renders the page fragment, the hottest template, several times faster
than the Django template language (docs/performance.md). Django's backend
already gives templates `request`, `csrf_input` and `csrf_token`.
"""
from typing import Any

from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import linebreaks
from django.utils.translation import get_language, gettext, ngettext
from jinja2 import Environment
from markupsafe import Markup


def environment(**options: Any) -> Environment:
    # Interface strings are written {{ _("...") }}, which Django's makemessages
    # also finds in these templates; a string with placeholders is formatted
    # with |format(name=...), after translation.
    env = Environment(**options, extensions=["jinja2.ext.i18n"])  # noqa: S701 (autoescape: True, in TEMPLATES' OPTIONS)
    # The i18n extension adds the method, which Jinja2's types do not declare.
    env.install_gettext_callables(gettext, ngettext, newstyle=False)  # type: ignore[attr-defined]
    env.globals.update(url=lambda name, *args: reverse(name, args=args), static=static, language=get_language)
    env.filters["linebreaks"] = paragraphs
    return env


def paragraphs(text: str) -> Markup:
    """Return plain ``text`` as escaped HTML paragraphs (Django's ``linebreaks`` filter, for Jinja2)."""
    return Markup(linebreaks(text, autoescape=True))  # noqa: S704 (linebreaks escaped the text)
