"""Staff email addresses in one normal form, stored and compared so everywhere (the account form and staff file,
uniqueness, single sign-on's verified email, password resets and their per-address limit).

The domain goes through IDNA (UTS #46: mapped, lower case, U-labels); the part before the @ is NFC with its ASCII
letters lower-cased, nothing else. An address with a character that stands for other letters under Unicode's
compatibility mapping or case folding (a dotless ı, a long ſ, fullwidth letters, an É that another system would
fold to é) is refused: it could otherwise be taken for, or matched with, another address. ``docs/architecture.md``
("The staff area") says why.
"""
import unicodedata
from collections.abc import Iterable
from typing import Any

import idna
from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator

EMAIL_MAX = 254  # Django's User.email
# Letters that IDNA 2008 keeps in a domain and older mail software (IDNA 2003, Python's own codec) drops, so that
# mail would go to another domain: the joiners (ß and ς are refused as folding to other letters).
_JOINERS = {"\u200c", "\u200d"}
_ASCII_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_INVALID = "Enter a valid email address."


def email_normalize(text: str) -> str:
    """Return ``text`` as the one form a staff email address is stored and compared in ("" for a blank one); raise
    ValidationError, with a message for the person who typed it, for one that is no address or that has characters
    standing for other letters."""
    text = text.strip()
    if not text:
        return ""
    local, at, domain = text.rpartition("@")
    if not (at and local and domain):
        raise ValidationError(_INVALID, code="invalid")
    lookalikes = _lookalikes(text)
    if lookalikes:
        raise ValidationError(
            f"This address has characters that stand for other letters ({lookalikes}), so it could be taken for "
            "another address: type it with the letters of the mailbox itself.", code="lookalike")
    local = unicodedata.normalize("NFC", local).translate(_ASCII_UPPER)
    try:
        domain = idna.decode(domain.removesuffix("."), uts46=True)
    except (idna.IDNAError, UnicodeError):
        raise ValidationError("The part after the @ is not a domain name.", code="invalid") from None
    changed = _lookalikes(local + domain, folded_only=True)
    if changed:
        raise ValidationError(
            f"This address has letters that change under Unicode case folding ({changed}), so it could be taken for "
            "another address: type it in lower case as the mailbox has it.", code="lookalike")
    if _JOINERS & set(domain):
        raise ValidationError("The domain has an invisible joining character (U+200C or U+200D) that some mail "
                              "software drops: mail could reach another domain.", code="lookalike")
    if not local.isascii():
        raise ValidationError("Only ASCII letters, digits and punctuation may come before the @: the survey's mail "
                              "cannot reach other addresses.", code="invalid")
    email = f"{local}@{domain}"
    try:
        EmailValidator(message=_INVALID)(email)
    except ValidationError:
        raise ValidationError(_INVALID, code="invalid") from None
    if len(email) > EMAIL_MAX:
        raise ValidationError(f"Longer than {EMAIL_MAX} characters.", code="max_length")
    return email


def _folded(text: str) -> str:
    """``text`` under compatibility mapping and full case folding (upper case first: ı and ſ fold to themselves
    alone, but are I and S in upper case)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).upper().casefold())


def _lookalikes(text: str, *, folded_only: bool = False) -> str:
    """The non-ASCII characters of ``text`` that fold to ASCII letters, digits or signs (``folded_only``: to anything
    but themselves), named for a message ("ı U+0131"); "" for none."""
    found = []
    for character in dict.fromkeys(text):
        if character.isascii() or unicodedata.combining(character):
            continue
        folded = _folded(character)
        if (folded != character) if folded_only else (folded != character and any(c.isascii() for c in folded)):
            found.append(f"{character} U+{ord(character):04X}")
    return ", ".join(found)


def email_normal_or_as_given(text: str) -> str:
    """``text`` in the normal form, or as it is where it has none (its rules, where it was entered, say why): nothing
    can match it then."""
    try:
        return email_normalize(text)
    except ValidationError:
        return text


def user_email_normalize(sender: type, instance: User, update_fields: Iterable[str] | None = None,
                         **kwargs: Any) -> None:
    """Store a user's email in the normal form, whoever saves it (``createsuperuser``, /admin/, a test's factory);
    one that has none is left as it is. A save of other columns (a sign-in's ``last_login``) is left alone."""
    if update_fields is not None and "email" not in update_fields:
        return
    instance.email = email_normal_or_as_given(instance.email or "")


class EmailAddressField(forms.CharField):
    """A form's email address, normalised (``email_normalize``, whose messages are its errors)."""

    widget = forms.EmailInput

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", EMAIL_MAX)
        super().__init__(**kwargs)

    def to_python(self, value: object) -> str:
        return email_normalize(super().to_python(value) or "")
