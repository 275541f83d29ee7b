"""The staff area's background work: the "set your password" emails of accounts just made, and the emails telling
old addresses of an account's new one."""
from celery import shared_task

from accounts.scopes import Scope
from staff.account_mail import email_change_notices_send
from staff.password_mail import password_mails_send


@shared_task(name="staff.password_mails_send", acks_late=True)
def password_mails_send_task(*, role, user_id, username, address, user_ids):
    return password_mails_send(scope=Scope(role=role, user_id=user_id, username=username, address=address),
                               user_ids=user_ids)


@shared_task(name="staff.email_change_notices_send", acks_late=True)
def email_change_notices_send_task(*, role, user_id, username, address, changes):
    return email_change_notices_send(scope=Scope(role=role, user_id=user_id, username=username, address=address),
                                     changes=changes)
