"""The staff area's settings, checked at start (``manage.py check``, migrate, collectstatic): the addresses its emails
and code slips print, and the password links' lifetimes (docs/operations.md, "Production settings")."""
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from django.apps import AppConfig
from django.conf import settings
from django.core import checks

ADDRESSES = {
    "STAFF_SITE_URL": ("staff.E002", "the staff area's address, named by every link in a staff email"),
    "SURVEY_PUBLIC_URL": ("staff.E003", "the respondents' login page, printed on every code slip and in its QR code"),
}


@checks.register()
def site_addresses_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Refuse an address that a link cannot be made from: empty, relative, or not http(s)."""
    errors: list[checks.CheckMessage] = []
    for name, (error_id, what) in ADDRESSES.items():
        value = getattr(settings, name, "")
        parts = urlsplit(value or "")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            errors.append(checks.Error(
                f"{name} is {value!r}: it must be {what}, as an absolute http(s) address (https://survey.example.org"
                f"{'/' if name == 'SURVEY_PUBLIC_URL' else ''}).", id=error_id))
    return errors


@checks.register()
def password_links_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Refuse a reset link's lifetime that Django's own (``PASSWORD_RESET_TIMEOUT``) would cut short."""
    reset, longest = settings.PASSWORD_RESET_LINK_SECONDS, settings.PASSWORD_RESET_TIMEOUT
    if not 0 < reset <= longest:
        return [checks.Error(f"PASSWORD_RESET_LINK_SECONDS is {reset}: give from 1 to PASSWORD_RESET_TIMEOUT "
                             f"({longest}) seconds.", id="staff.E004")]
    return []
