"""The staff area's background work: the "set your password" emails of accounts just made (or sent again), the
answer to a password reset asked for, and the emails telling old addresses of an account's new one."""
from typing import Any

from celery import shared_task
from django.utils.dateparse import parse_datetime

from accounts.scopes import Scope
from staff.account_mail import email_change_notices_send
from staff.password_mail import password_mails_send, password_reset_send


@shared_task(name="staff.password_mails_send", acks_late=True)
def password_mails_send_task(*, role: str, user_id: int | None, username: str, address: str, user_ids: list[int],
                             again: bool = False) -> int:
    return password_mails_send(scope=Scope(role=role, user_id=user_id, username=username, address=address),
                               user_ids=user_ids, again=again)


@shared_task(name="staff.password_reset_send", acks_late=True)
def password_reset_send_task(*, email: str, address: str, limited: bool = False, asked_at: str | None = None) -> int:
    return password_reset_send(email=email, address=address, limited=limited,
                               asked_at=parse_datetime(asked_at) if asked_at else None)


@shared_task(name="staff.email_change_notices_send", acks_late=True)
def email_change_notices_send_task(*, role: str, user_id: int | None, username: str, address: str,
                                   changes: list[dict[str, Any]]) -> int:
    return email_change_notices_send(scope=Scope(role=role, user_id=user_id, username=username, address=address),
                                     changes=changes)
