"""Names on the slip as the staff search compares them: accents, case and punctuation aside ("garcia" finds
"García", "munoz pena" finds "Muñoz-Peña").

One SQL function, ``respondent_name_folded(text)``, folds in the database on both sides of the comparison (the name
and what was typed), so a name and a search for it are always folded alike. On PostgreSQL it is an immutable wrapper
of ``unaccent``, made by ``migrations/0019_search_folded_names.py`` with a trigram index over it; on SQLite (the
embedded default) ``fold_name`` below is registered under the same name on every connection. A folded name starts
with a space and has one between its words, so that "a word starting with RO" is the one pattern ``% RO%``, which
the trigram index serves however short it is. Read ``docs/architecture.md``, "Finding people", for the index and
its costs.
"""
import re
import unicodedata

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import CharField, Func

FUNCTION = "respondent_name_folded"

# Letters that are no letter plus an accent, so that Unicode's decomposition keeps them: folded as PostgreSQL's
# unaccent folds them.
_LETTERS = str.maketrans({"ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O",
                          "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH",
                          "ı": "i", "ħ": "h", "Ħ": "H", "ŀ": "l", "Ŀ": "L"})
# What is not a letter or a digit, as PostgreSQL's [^[:alnum:]] (the underscore is no letter there either).
_BETWEEN_WORDS = re.compile(r"[\W_]+")


def fold_name(name: str | None) -> str | None:
    """Return ``name`` as the search compares names: without its accents, in capitals, each run of what is not a
    letter or a digit one space, after a space ("Muñoz-Peña" → " MUNOZ PENA"); None stays None."""
    if name is None:
        return None
    decomposed = unicodedata.normalize("NFKD", name.translate(_LETTERS))
    letters = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " " + _BETWEEN_WORDS.sub(" ", letters).upper()


class NameFolded(Func):
    """``respondent_name_folded(expression)``: a text folded as ``fold_name`` folds it, in the database."""

    function = FUNCTION
    output_field = CharField()


def sqlite_function_register(connection: BaseDatabaseWrapper) -> None:
    """Make ``respondent_name_folded`` on a new SQLite connection (Django's ``connection_created``)."""
    if connection.vendor == "sqlite":
        connection.connection.create_function(FUNCTION, 1, fold_name, deterministic=True)
