"""Who changes which staff account (accounts/staff_accounts.py's ``account_limits``), through the form's service
and bulk deactivation; what a changed email does (single sign-on links removed and audited, the old address told
once the change commits); and unlinking a single sign-on identity by hand."""
import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from accounts.models import AuditEntry, SignOnIdentity, StaffMember
from accounts.scopes import COMMAND_LINE
from accounts.staff_accounts import (
    StaffAccount,
    sign_on_identity_unlink,
    staff_account_save,
    staff_accounts_set_active,
    staff_emails_changed,
)
from respondents.tests.factories import make_staff, scope_of

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
Action = AuditEntry.Action
User = get_user_model()


@pytest.fixture
def office():
    return scope_of(make_staff(Role.STATE_ADMIN, username="office"))


@pytest.fixture
def root():
    user = User.objects.create_superuser(username="root", email="root@agency.example", password="x" * 20)
    return scope_of(user)


def staff(username, role=Role.STATE_ADMIN, email=None):
    user = make_staff(role, username=username)
    user.email = email if email is not None else f"{username}@agency.example"
    user.save()
    return user


def linked(user, subject="sub-1"):
    return SignOnIdentity.objects.create(user=user, issuer="https://idp.agency.example", subject=subject,
                                         linked_at=timezone.now())


def account(user, **changes):
    member = StaffMember.objects.get(user=user)
    fields = {"username": user.username, "role": member.role, "email": user.email, "name": member.name,
              "is_active": user.is_active, **changes}
    return StaffAccount(**fields)


@pytest.fixture
def told():
    """The changes ``staff_emails_changed`` announced, as a list (the staff area's receiver mails them)."""
    seen = []

    def receive(sender, scope, changes, **kwargs):
        seen.append((scope.username, changes))

    staff_emails_changed.connect(receive, dispatch_uid="test-told")
    yield seen
    staff_emails_changed.disconnect(dispatch_uid="test-told")


def test_a_state_administrator_changes_another_administrators_name_but_not_their_email_role_or_sign_in(office):
    peer = staff("peer")
    for change, field in (({"email": "mine@attacker.example"}, "email"), ({"role": Role.ANALYST}, "role"),
                          ({"is_active": False}, "is_active")):
        with pytest.raises(ValidationError) as refused:
            staff_account_save(scope=office, account=account(peer, **change), user_id=peer.pk)
        assert refused.value.message_dict == {field: [
            f"Only a superuser changes another state administrator's {'sign-in (whether it may sign in)' if field == 'is_active' else field}."]}
    staff_account_save(scope=office, account=account(peer, name="Pat Peer", email="PEER@Agency.Example"),
                       user_id=peer.pk)  # the same address in capitals is no change
    peer.refresh_from_db()
    assert (peer.email, peer.is_active, StaffMember.objects.get(user=peer).name) == (
        "peer@agency.example", True, "Pat Peer")


def test_a_superuser_and_the_command_line_change_another_state_administrators_email_role_and_sign_in(office, root):
    peer = staff("peer")
    for scope, email in ((root, "peer.new@agency.example"), (COMMAND_LINE, "peer.newer@agency.example")):
        staff_account_save(scope=scope, account=account(peer, email=email, role=Role.ANALYST, is_active=False),
                           user_id=peer.pk)
        peer.refresh_from_db()
        assert (peer.email, peer.is_active, StaffMember.objects.get(user=peer).role) == (email, False, Role.ANALYST)
        StaffMember.objects.filter(user=peer).update(role=Role.STATE_ADMIN)


def test_an_administrator_changes_their_own_email_and_name_and_a_coordinators_anything(office):
    me = User.objects.get(username="office")
    staff_account_save(scope=office, account=account(me, email="office.new@agency.example", name="Olive Office"),
                       user_id=me.pk)
    coordinator = staff("coord", role=Role.ANALYST)
    staff_account_save(scope=office, account=account(coordinator, email="c2@agency.example", role=Role.STATE_ADMIN),
                       user_id=coordinator.pk)  # made an administrator: any administrator may make one
    assert User.objects.get(pk=me.pk).email == "office.new@agency.example"
    assert StaffMember.objects.get(user=coordinator).role == Role.STATE_ADMIN


def test_the_form_never_changes_a_superusers_account_or_one_without_a_staff_role(office, root):
    superuser = User.objects.get(username="root")
    StaffMember.objects.create(user=superuser, role=Role.STATE_ADMIN)
    plain = User.objects.create_user(username="plain", email="plain@agency.example")
    for scope in (office, root):
        with pytest.raises(ValidationError) as refused:
            staff_account_save(scope=scope, account=account(superuser, email="x@attacker.example"),
                               user_id=superuser.pk)
        assert refused.value.message_dict == {"username": [
            "root is a superuser: only a superuser changes it, in /admin/."]}
        with pytest.raises(ValidationError, match="plain has no staff role"):
            staff_account_save(scope=scope, account=StaffAccount(username="plain", role=Role.ANALYST,
                                                                 email="x@attacker.example"), user_id=plain.pk)
    assert User.objects.get(pk=superuser.pk).email == "root@agency.example"
    assert User.objects.get(pk=plain.pk).email == "plain@agency.example"
    assert not StaffMember.objects.filter(user=plain).exists()


def test_bulk_deactivation_refuses_a_superuser_or_another_administrator_and_changes_nothing_then(office, root):
    peer, analyst = staff("peer"), staff("analyst", role=Role.ANALYST)
    superuser = User.objects.get(username="root")
    StaffMember.objects.create(user=superuser, role=Role.STATE_ADMIN)
    for ids, refused in (([peer.pk, analyst.pk], "peer"), ([superuser.pk], "root")):
        with pytest.raises(ValidationError, match=f"Only a superuser changes these accounts .*: {refused}\\."):
            staff_accounts_set_active(scope=office, user_ids=ids, active=False)
    assert User.objects.filter(is_active=False).count() == 0
    other_root = User.objects.create_superuser(username="root2", password="x" * 20)
    StaffMember.objects.create(user=other_root, role=Role.STATE_ADMIN)
    with pytest.raises(ValidationError, match="root2"):  # a superuser's account: /admin/ alone, even for a superuser
        staff_accounts_set_active(scope=root, user_ids=[other_root.pk, peer.pk], active=False)
    assert staff_accounts_set_active(scope=root, user_ids=[peer.pk, analyst.pk], active=False) == ["analyst", "peer"]
    assert staff_accounts_set_active(scope=office, user_ids=[analyst.pk], active=True) == ["analyst"]


def test_a_changed_email_removes_the_sign_on_links_audited_and_is_announced_once_it_commits(
        office, told, django_capture_on_commit_callbacks):
    lee = staff("lee", role=Role.ANALYST)
    linked(lee, "sub-1")
    linked(lee, "sub-2")
    other = staff("other", role=Role.ANALYST)
    linked(other, "sub-3")
    with django_capture_on_commit_callbacks() as callbacks:
        staff_account_save(scope=office, account=account(lee, email="Lee.New@Agency.example"), user_id=lee.pk)
        assert not told  # not before the change commits
    for callback in callbacks:
        callback()
    [(by, [change])] = told
    assert by == "office"
    assert {key: change[key] for key in ("user_id", "username", "old", "new", "unlinked")} == {
        "user_id": lee.pk, "username": "lee", "old": "lee@agency.example", "new": "lee.new@agency.example",
        "unlinked": 2}
    assert list(SignOnIdentity.objects.values_list("subject", flat=True)) == ["sub-3"]
    assert sorted(AuditEntry.objects.filter(action=Action.SIGN_ON_UNLINKED).values_list("detail", flat=True)) == [
        f"lee: single sign-on link removed (sub-{n} at https://idp.agency.example): its email changed" for n in (1, 2)]
    told.clear()
    with django_capture_on_commit_callbacks(execute=True):  # the same address again (in capitals): no change
        staff_account_save(scope=office, account=account(lee, email="LEE.NEW@agency.example", name="Lee"),
                           user_id=lee.pk)
    assert not told


def test_a_refused_change_unlinks_nothing_and_announces_nothing(office, told, django_capture_on_commit_callbacks):
    lee = staff("lee", role=Role.ANALYST)
    linked(lee)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ValidationError):
        staff_account_save(scope=office, account=account(lee, email="lee.new@agency.example", school_codes=("NOPE",)),
                           user_id=lee.pk)
    assert SignOnIdentity.objects.count() == 1 and not told
    assert User.objects.get(pk=lee.pk).email == "lee@agency.example"


def test_unlinking_an_identity_is_audited_and_only_a_superuser_unlinks_another_administrators(office, root):
    analyst, peer = staff("analyst", role=Role.ANALYST), staff("peer")
    theirs, peers = linked(analyst, "sub-a"), linked(peer, "sub-p")
    mine = linked(User.objects.get(username="office"), "sub-o")
    sign_on_identity_unlink(scope=office, user_id=analyst.pk, identity_id=theirs.pk)
    sign_on_identity_unlink(scope=office, user_id=office.user_id, identity_id=mine.pk)
    with pytest.raises(PermissionDenied, match="Only a superuser changes another state administrator's single sign"):
        sign_on_identity_unlink(scope=office, user_id=peer.pk, identity_id=peers.pk)
    with pytest.raises(SignOnIdentity.DoesNotExist):  # an identity named through another account
        sign_on_identity_unlink(scope=root, user_id=analyst.pk, identity_id=peers.pk)
    assert SignOnIdentity.objects.get() == peers
    sign_on_identity_unlink(scope=root, user_id=peer.pk, identity_id=peers.pk)
    assert not SignOnIdentity.objects.exists()
    entries = AuditEntry.objects.filter(action=Action.SIGN_ON_UNLINKED).order_by("pk")
    assert [(e.username, e.detail) for e in entries] == [
        ("office", "analyst: single sign-on link removed (sub-a at https://idp.agency.example)"),
        ("office", "office: single sign-on link removed (sub-o at https://idp.agency.example)"),
        ("root", "peer: single sign-on link removed (sub-p at https://idp.agency.example)")]
    coordinator = scope_of(make_staff(Role.SCHOOL_COORDINATOR))
    with pytest.raises(PermissionDenied):
        sign_on_identity_unlink(scope=coordinator, user_id=analyst.pk, identity_id=theirs.pk)

