"""A question's code is its variable's name in every export: the rules that make it one SPSS and Stata take.

The survey document's checks (``surveys/documents.py``) refuse a code that
breaks them when a survey is loaded, so a question's variable is named by its
code in CSV, XLSX, SPSS, Stata and the codebook, and the name never changes
from one export to the next. The rules are the stricter of the two tools':

- at most 32 characters (Stata's limit; SPSS takes 64 bytes);
- an ASCII letter first, then letters, digits and ``_`` (both tools);
- not a reserved word: SPSS's ``ALL AND BY EQ GE GT LE LT NE NOT OR TO WITH``
  (in any case) and Stata's (``if``, ``in``, ``using``, ``byte`` ... and
  ``str1`` to ``str2045``, its string types);
- not the same as another code but for case: SPSS does not tell ``Grade``
  from ``grade``;
- not starting with ``roster_``: the roster and system columns of an export
  (school, grade, status, timestamps ...) are always named ``roster_<field>``,
  so they never take a question's name, whatever fields are asked for.
"""
import re
from collections.abc import Mapping

NAME_MAX_LENGTH = 32
ROSTER_PREFIX = "roster_"
STATA_RESERVED = frozenset({
    "_all", "_b", "byte", "_coef", "_cons", "double", "float", "if", "in", "int", "long", "_n", "_pi", "_pred",
    "_rc", "_skip", "strl", "using", "with",
})
SPSS_RESERVED = frozenset({"all", "and", "by", "eq", "ge", "gt", "le", "lt", "ne", "not", "or", "to", "with"})
_STATA_STR_TYPE = re.compile(r"^str[0-9]+$")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def is_reserved(name: str) -> bool:
    """Whether SPSS or Stata keeps ``name`` (in any case) for itself."""
    lower = name.lower()
    return lower in STATA_RESERVED or lower in SPSS_RESERVED or bool(_STATA_STR_TYPE.match(lower))


def variable_name_problems(code: str, *, taken: Mapping[str, str] | None = None) -> list[str]:
    """Return why ``code`` cannot name its question's variable in SPSS and Stata (an empty list: it can).

    ``taken`` maps the codes before it to where they are, for the clash of two
    codes that differ only in case.
    """
    problems = []
    if not _NAME.match(code):
        problems.append("a variable name starts with a letter and holds only letters, digits and '_'")
    if len(code) > NAME_MAX_LENGTH:
        problems.append(f"is {len(code)} characters: Stata takes at most {NAME_MAX_LENGTH} in a variable name")
    if _STATA_STR_TYPE.match(code.lower()):
        problems.append(f"'{code}' is one of Stata's string types (str1 to str2045): it cannot name a variable")
    elif is_reserved(code):
        tools = " and ".join(tool for tool, words in (("SPSS", SPSS_RESERVED), ("Stata", STATA_RESERVED))
                             if code.lower() in words)
        problems.append(f"'{code}' is a reserved word of {tools}: it cannot name a variable")
    if code.lower().startswith(ROSTER_PREFIX):
        problems.append(f"starts with '{ROSTER_PREFIX}', which exports keep for the roster fields' columns")
    for other, where in (taken or {}).items():
        if other != code and other.lower() == code.lower():
            problems.append(f"'{code}' and '{other}' (at {where}) differ only in case: SPSS takes them as one name")
    return problems
