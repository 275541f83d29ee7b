"""Lists of district and school codes as staff type, upload and read them: one way to split them, one to show them."""
import re
from collections.abc import Iterable

# How a list of codes is shown: in help texts, on pages, in messages and in the audit log's details.
SEPARATOR = ", "
_BETWEEN = re.compile(r"[,\s]+")


def split_codes(text: str) -> tuple[str, ...]:
    """Return the codes of ``text``, separated by commas, spaces or new lines in any mix ("D1, D2 D3"), in their
    order (as typed: a code given twice is there twice)."""
    return tuple(code for code in _BETWEEN.split(text) if code)


def join_codes(codes: Iterable[str]) -> str:
    """Return ``codes`` as a list of them is shown: "D1, D2, D3"."""
    return SEPARATOR.join(codes)
