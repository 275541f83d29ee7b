"""Staff sign-ins, failed ones and sign-outs go to the audit log (respondents/audit.py)."""
from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.dispatch import receiver

from config.login_limits import client_ip
from respondents.audit import audit_sign_in


def _address(request):
    return client_ip(request) if request else ""


@receiver(user_logged_in, dispatch_uid="staff-audit-sign-in")
def _signed_in(sender, request, user, **kwargs):
    audit_sign_in(user=user, address=_address(request))


@receiver(user_login_failed, dispatch_uid="staff-audit-sign-in-failed")
def _sign_in_failed(sender, credentials, request=None, **kwargs):
    audit_sign_in(username=credentials.get("username", ""), address=_address(request), failed=True)


@receiver(user_logged_out, dispatch_uid="staff-audit-sign-out")
def _signed_out(sender, request, user, **kwargs):
    if user is not None:
        audit_sign_in(user=user, address=_address(request), signed_out=True)
