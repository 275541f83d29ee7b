"""/admin/'s users and staff members under the staff area's rules (staff/admin.py): a state administrator whom a
superuser let into /admin/ changes neither a superuser nor another state administrator, nor makes anyone a
superuser; an email changed there is normalised, one account's, and tells its old address and removes the account's
single sign-on links, as the staff area's form does."""
import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts.models import AuditEntry, SignOnIdentity, StaffMember
from respondents.tests.factories import make_staff

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
User = get_user_model()
PASSWORD = "a long staff passphrase"
PERMISSIONS = ["view_user", "change_user", "delete_user", "view_staffmember", "add_staffmember",
               "change_staffmember", "delete_staffmember"]


def admin_signed_in(username, *, superuser=False):
    """A client signed in to /admin/ as a new state administrator let in with every user and staff permission, or
    as a new superuser."""
    if superuser:
        user = User.objects.create_superuser(username=username, email=f"{username}@agency.example", password=PASSWORD)
    else:
        user = make_staff(Role.STATE_ADMIN, username=username)
        user.is_staff = True
        user.save()
        user.user_permissions.set(Permission.objects.filter(codename__in=PERMISSIONS))
    client = Client()
    assert client.post("/admin/login/?next=/admin/", {"username": username, "password": PASSWORD}).status_code == 302
    return client


def user_form(user, **changes):
    """The fields /admin/'s change form of ``user`` posts."""
    joined = timezone.localtime(user.date_joined)
    return {"username": user.username, "email": user.email, "first_name": user.first_name,
            "last_name": user.last_name, "is_active": "on" if user.is_active else "",
            "date_joined_0": joined.strftime("%Y-%m-%d"), "date_joined_1": joined.strftime("%H:%M:%S"),
            "last_login_0": "", "last_login_1": "", **changes}


def with_email(user, email):
    user.email = email
    user.save()
    return user


def test_a_state_administrator_in_admin_changes_neither_a_superuser_nor_another_administrator_nor_makes_one():
    office = admin_signed_in("office")
    peer = with_email(make_staff(Role.STATE_ADMIN, username="peer"), "peer@agency.example")
    root = User.objects.create_superuser(username="root", email="root@agency.example", password=PASSWORD)
    for target in (peer, root):
        response = office.post(f"/admin/auth/user/{target.pk}/change/",
                               user_form(target, email="mine@attacker.example"))
        assert response.status_code == 403, target
        assert office.post(f"/admin/auth/user/{target.pk}/delete/", {"post": "yes"}).status_code == 403
        assert office.post(f"/admin/auth/user/{target.pk}/password/", {
            "password1": "taken over 12345", "password2": "taken over 12345"}).status_code == 403
    member = StaffMember.objects.get(user=peer)
    assert office.post(f"/admin/accounts/staffmember/{member.pk}/change/", {"role": Role.ANALYST}).status_code == 403
    assert User.objects.get(pk=peer.pk).email == "peer@agency.example" and User.objects.filter(pk=root.pk).exists()
    assert StaffMember.objects.get(user=peer).role == Role.STATE_ADMIN

    me = User.objects.get(username="office")
    office.post(f"/admin/auth/user/{me.pk}/change/", user_form(me, is_superuser="on", first_name="Olive"))
    me.refresh_from_db()
    assert me.first_name == "Olive" and not me.is_superuser  # their own name, never a superuser's powers
    plain = User.objects.create_user(username="plain")
    page = office.get("/admin/accounts/staffmember/add/").content.decode()  # a role for whom
    assert f'value="{plain.pk}"' in page and f'value="{root.pk}"' not in page and f'value="{peer.pk}"' not in page


def test_an_email_changed_in_admin_is_normalised_one_accounts_tells_the_old_address_and_unlinks_sign_on(
        django_capture_on_commit_callbacks):
    root = admin_signed_in("root", superuser=True)
    peer = with_email(make_staff(Role.STATE_ADMIN, username="peer"), "peer@agency.example")
    with_email(make_staff(Role.ANALYST, username="other"), "other@agency.example")
    SignOnIdentity.objects.create(user=peer, issuer="https://idp.example", subject="s", linked_at=timezone.now())
    taken = root.post(f"/admin/auth/user/{peer.pk}/change/", user_form(peer, email="OTHER@Agency.example"))
    assert "This email is another account&#x27;s: other." in taken.content.decode()
    lookalike = root.post(f"/admin/auth/user/{peer.pk}/change/", user_form(peer, email="pееr@agency.example"))
    assert "Only ASCII letters" in lookalike.content.decode()  # (Cyrillic е)
    with django_capture_on_commit_callbacks(execute=True):
        done = root.post(f"/admin/auth/user/{peer.pk}/change/", user_form(peer, email="Peer.New@Agency.Example"))
    assert done.status_code == 302
    assert User.objects.get(pk=peer.pk).email == "peer.new@agency.example"
    [message] = mail.outbox
    assert message.to == ["peer@agency.example"] and "to peer.new@agency.example by root" in " ".join(
        message.body.split())
    assert not SignOnIdentity.objects.exists()
    assert AuditEntry.objects.filter(action="sign_on_unlinked", username="root").count() == 1
    assert AuditEntry.objects.filter(action="admin_changed", username="root").exists()
