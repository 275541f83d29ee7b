"""Staff sign-in limits on the live stack (staff/sign_in_limits.py, counters in Redis): an account is paused at its
tenth failure from one address, and only there. Runs only against the live stack (`make test-stack`)."""
import uuid

import pytest

from deploy.tests import stack

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True, databases="__all__")]



def test_staff_sign_in_on_the_stack_pauses_an_account_at_the_tenth_failure_from_one_address_only():
    """Counted in Redis for every gunicorn worker: the account is paused at that address, not at another."""
    account = f"nobody-{uuid.uuid4().hex[:8]}"
    web = stack.WebClient(forwarded_for=f"203.0.113.{uuid.uuid4().int % 250}")
    elsewhere = stack.WebClient(forwarded_for=f"198.51.100.{uuid.uuid4().int % 250}")
    try:
        statuses = [web.post_form("/admin/login/", {"username": account, "password": "wrong"})[0] for _ in range(12)]
        assert statuses[:9] == [200] * 9 and statuses[9:] == [429] * 3
        assert elsewhere.post_form("/admin/login/", {"username": account, "password": "wrong"})[0] == 200
    finally:
        stack.forget_login_failures()
