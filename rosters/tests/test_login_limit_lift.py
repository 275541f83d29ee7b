"""Lifting a login limit on a school's address (rosters.services.login_limit_lift): only for whoever manages that
school's people, only while it holds; audited; the address's failed codes forgotten at once."""
import time

import pytest
from django.core.exceptions import PermissionDenied

from accounts.models import AuditEntry, StaffMember
from respondents.login_limits import address_login_failed, address_login_succeeded, address_logins
from respondents.models import LoginLimitHit
from respondents.tests.factories import make_staff, scope_of
from rosters.services import LoginLimitNotActive, login_limit_lift

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
NETWORK = "198.51.100.50"


@pytest.fixture
def hit(settings, monkeypatch, lincoln):
    """The school network of Lincoln, refused: a pupil logged in from it, then four codes that found nobody."""
    settings.RESPONDENT_LOGIN_FAILURE_RATE = "3/10m"
    end = int(time.time()) + 300
    monkeypatch.setattr("django_ratelimit.core._get_window", lambda value, period: end)
    address_login_succeeded(logins=address_logins(address=NETWORK), respondent_id=1, school_id=lincoln.pk)
    for _ in range(4):
        address_login_failed(logins=address_logins(address=NETWORK))
    assert address_logins(address=NETWORK).wait > 0
    return LoginLimitHit.objects.get()


def test_the_school_s_coordinator_lifts_it_the_address_is_let_through_and_it_is_audited(hit, lincoln, coordinator):
    lifted = login_limit_lift(scope=scope_of(coordinator), hit_id=hit.pk, school=lincoln)
    assert lifted.lifted_by == "lin-coord" and not lifted.is_active
    assert address_logins(address=NETWORK).wait == 0
    entry = AuditEntry.objects.get(action=AuditEntry.Action.LOGIN_LIMIT_LIFTED)
    assert (entry.username, entry.school, entry.address) == ("lin-coord", lincoln, "192.0.2.7")
    assert entry.get_action_display() == "Respondent login limit lifted"


def test_an_analyst_may_not_and_a_coordinator_of_another_school_finds_no_such_hit(hit, lincoln, adams):
    with pytest.raises(PermissionDenied):
        login_limit_lift(scope=scope_of(make_staff(Role.ANALYST)), hit_id=hit.pk, school=lincoln)
    other = scope_of(make_staff(Role.SCHOOL_COORDINATOR, schools=[adams]))
    with pytest.raises(LoginLimitHit.DoesNotExist):
        login_limit_lift(scope=other, hit_id=hit.pk, school=lincoln)  # a school outside the scope
    with pytest.raises(LoginLimitHit.DoesNotExist):
        login_limit_lift(scope=other, hit_id=hit.pk, school=adams)  # not a hit of that school
    assert address_logins(address=NETWORK).wait > 0 and not AuditEntry.objects.exists()


def test_a_hit_lifted_already_or_ended_is_not_lifted_again(hit, lincoln, coordinator):
    login_limit_lift(scope=scope_of(coordinator), hit_id=hit.pk, school=lincoln)
    with pytest.raises(LoginLimitNotActive):
        login_limit_lift(scope=scope_of(coordinator), hit_id=hit.pk, school=lincoln)
    LoginLimitHit.objects.filter(pk=hit.pk).update(lifted_at=None, limited_until=hit.limited_at)
    with pytest.raises(LoginLimitNotActive):
        login_limit_lift(scope=scope_of(coordinator), hit_id=hit.pk, school=lincoln)
    assert AuditEntry.objects.count() == 1
