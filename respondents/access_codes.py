"""Access codes: what a respondent types on a printed slip to log in.

A code is 10 characters from a 31-character alphabet with no look-alikes
(no 0/O, 1/I/L), drawn with ``secrets``: 31**10 is about 2**49.5, so with two
million codes issued a guess hits one about once in 400 million tries. It is
printed as two groups of five (``K7QM2-XH4RP``); typing it in lower case or
with spaces or dashes still works.
"""
import os
import secrets

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
LENGTH = 10
GROUP = 5

def generate() -> str:
    """Return a new random access code in stored (unformatted) form."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


# Bytes below 248 (8 x 31) map to the alphabet evenly; the rest are dropped, so every character stays uniform.
_BYTE_TO_CHAR = bytes(ord(ALPHABET[b % len(ALPHABET)]) if b < 248 else 0 for b in range(256))
_DROPPED = bytes(range(248, 256))


def generate_many(count: int) -> list[str]:
    """Return ``count`` new random codes at once: the same draw as ``generate``, for a roster of a million."""
    needed = count * LENGTH
    chars = b""
    while len(chars) < needed:
        chars += os.urandom(needed - len(chars) + needed // 30 + 16).translate(_BYTE_TO_CHAR, _DROPPED)
    text = chars[:needed].decode("ascii")
    return [text[i:i + LENGTH] for i in range(0, needed, LENGTH)]


def normalize(typed: str) -> str | None:
    """Return ``typed`` in stored form, or None when it cannot be a code.

    Case, spaces and dashes are ignored. The caller treats None exactly like an
    unknown code, so the answer never tells a malformed code from a wrong one.
    """
    cleaned = _cleaned(typed)
    if len(cleaned) != LENGTH or any(ch not in ALPHABET for ch in cleaned):
        return None
    return cleaned


def normalize_prefix(typed: str) -> str | None:
    """Return ``typed`` as the start of a code in stored form (``"k7qm2-x"`` → ``"K7QM2X"``), read as ``normalize``
    reads a code, or None when no code starts so (empty, too long, or a character no code has)."""
    cleaned = _cleaned(typed)
    if not cleaned or len(cleaned) > LENGTH or any(ch not in ALPHABET for ch in cleaned):
        return None
    return cleaned


def _cleaned(typed: str) -> str:
    return "".join(ch for ch in typed.upper() if ch not in " -\t")


def format_code(code: str) -> str:
    """Return ``code`` split into groups for printing."""
    return "-".join(code[i : i + GROUP] for i in range(0, len(code), GROUP))
