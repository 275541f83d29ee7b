"""A question's code is its variable's name in every export: the rules that make it one SPSS and Stata take.

``variable_name_problems`` is the check a survey document makes of each code. Read next: ``docs/architecture.md``,
"Response exports" (*Names*).
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
