"""The languages a survey may be written in: any language CLDR knows, read through Babel.

``language_code`` reads the ways XLSForms name a language; ``has_interface`` tells apart those the interface speaks.
Read next: ``docs/architecture.md``, "Languages"; ``docs/xlsform.md``, "Languages".
"""
import functools
import re

from babel import Locale, UnknownLocaleError
from babel.localedata import locale_identifiers
from django.conf import settings
from django.utils.translation import to_language, to_locale

_NAMED_CODE = re.compile(r"^(?P<name>.*?)\s*\((?P<code>[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*)\)$")
_CODE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")


# Bounded: the codes it is asked about come from requests too (the switcher's POST, its cookie).
@functools.lru_cache(maxsize=1024)
def _locale(code: str) -> Locale | None:
    try:
        return Locale.parse(to_locale(code))
    except (UnknownLocaleError, ValueError):
        return None


def is_language(code: object) -> bool:
    """Return whether ``code`` is a language code CLDR knows, written as Django writes codes (``pt-br``)."""
    return isinstance(code, str) and bool(_CODE.match(code)) and code == code.lower() and _locale(code) is not None


@functools.cache
def _names() -> dict[str, str]:
    """Every language's English name, and its name in itself, lowercased, to its code."""
    names = {name.lower(): to_language(code) for code, name in Locale("en").languages.items()}
    for identifier in locale_identifiers():
        if "_" in identifier:
            continue
        try:
            own = Locale.parse(identifier).get_language_name(identifier)
        except (UnknownLocaleError, ValueError):
            continue
        if own:
            names.setdefault(own.lower(), to_language(identifier))
    return names


def language_code(text: str) -> str | None:
    """Return the code of the language ``text`` names, or None: ``English (en)`` (the code in brackets wins), a
    code alone (``es``, ``pt_BR``), or a name in English or in the language itself (``Chinese``, ``español``)."""
    text = text.strip()
    match = _NAMED_CODE.match(text)
    candidate = match["code"] if match else text
    if _CODE.match(candidate):
        code = to_language(candidate)
        if is_language(code):
            return code
    if match:
        return None  # a code in brackets that is not a language: its name does not overrule it
    named = _names().get(text.lower())
    return named if named and is_language(named) else None


def language_name(code: str, *, in_language: str = "en") -> str:
    """Return the name of language ``code`` in ``in_language`` (``Swahili``), or the code if CLDR has none."""
    locale = _locale(code)
    name = locale.get_display_name(to_locale(in_language)) if locale else None
    return name or code


def local_name(code: str) -> str:
    """Return the name of language ``code`` in itself (``Kiswahili``), as a language switcher shows it."""
    name = language_name(code, in_language=code)
    return name[:1].upper() + name[1:]


def has_interface(code: str) -> bool:
    """Return whether the site's interface speaks ``code`` (a catalogue of its words in ``config/locale``)."""
    return code in dict(settings.LANGUAGES)


def is_right_to_left(code: str) -> bool:
    locale = _locale(code)
    return bool(locale and locale.character_order == "right-to-left")
