"""Staff emails in one normal form (accounts/emails.py): what it is, what it refuses and why, that it is what is
stored whoever saves a user (and what the data migration makes of older rows), and that every lookup compares in
it: the same on SQLite and on PostgreSQL (C.UTF-8, as production's databases are), where a database's own
case-insensitive match (UPPER) would take a dotless ı for an i."""
import importlib

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from accounts.emails import email_normalize
from accounts.models import StaffMember
from accounts.passwords import password_reset_recipients
from accounts.sign_on import SignOnClaims, SignOnRefused, SignOnRules, sign_on_account
from accounts.staff_accounts import StaffAccount, staff_account_save
from accounts.staff_import import staff_import
from respondents.tests.factories import make_staff, scope_of

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
User = get_user_model()
HEADER = "username,email,name,role,district_codes,school_codes\n"
# Characters that stand for other letters: each address would otherwise be taken for "lee@agency.example" (or
# name a mailbox no one can tell from it).
LOOKALIKES = {
    "dotless i": "lıee@agency.example",
    "long s": "leſ@agency.example",
    "fullwidth letter": "ｌee@agency.example",
    "Kelvin sign": "\u212aee@agency.example",
    "ligature": "ﬁle@agency.example",
    "dotless i in the domain": "lee@agency.exampıe",
    "dotted capital I in the domain": "lee@İagency.example",
    "fullwidth letter in the domain": "lee@ａgency.example",
    "sharp s in the domain": "lee@straße.example",
    "final sigma in the domain": "lee@ας.example",
    "capital É": "JOSÉ@agency.example",
}


@pytest.mark.parametrize(("typed", "normal"), [
    ("Lee@Agency.Example", "lee@agency.example"),
    ("  lee@agency.example  ", "lee@agency.example"),
    ("lee@agency.example.", "lee@agency.example"),
    ("Lee.O'Brien+survey@AGENCY.example", "lee.o'brien+survey@agency.example"),
    ("lee@BÜCHER.example", "lee@bücher.example"),
    ("lee@xn--bcher-kva.example", "lee@bücher.example"),  # the same domain as an A-label
    ("lee@bu\u0308cher.example", "lee@bücher.example"),  # and with ü as u and a combining diaeresis
    ("", ""),
])
def test_an_address_is_one_form_domain_through_idna_and_only_ascii_letters_lower_cased(typed, normal):
    assert email_normalize(typed) == normal
    assert email_normalize(normal) == normal


@pytest.mark.parametrize("name", LOOKALIKES)
def test_an_address_with_characters_that_stand_for_other_letters_is_refused_naming_no_other_address(name):
    with pytest.raises(ValidationError) as refused:
        email_normalize(LOOKALIKES[name])
    [message] = refused.value.messages
    assert "could be taken for another address" in message
    assert "@" not in message  # the character and its code point, never the address it looks like


@pytest.mark.parametrize(("typed", "message"), [
    ("not an address", "Enter a valid email address."),
    ("lee@", "Enter a valid email address."),
    ("lee@agency", "Enter a valid email address."),
    ("lee@exa_mple.example", "The part after the @ is not a domain name."),
    ("josé@agency.example", "Only ASCII letters, digits and punctuation may come before the @"),
    ("lee@a\u200cb.example", "not a domain name"),
    ("l" * 250 + "@agency.example", "Longer than 254 characters."),
])
def test_what_is_no_address_is_refused_with_its_reason(typed, message):
    with pytest.raises(ValidationError, match=message):
        email_normalize(typed)


def test_a_user_saved_by_anyone_stores_the_normal_form_and_a_lookalike_as_it_is():
    made = User.objects.create_user(username="lee", email="Lee@BÜCHER.example")
    root = User.objects.create_superuser(username="root", email="ROOT@Agency.Example", password="x" * 20)
    odd = User.objects.create_user(username="odd", email="lıee@agency.example")
    assert User.objects.get(pk=made.pk).email == "lee@bücher.example"
    assert User.objects.get(pk=root.pk).email == "root@agency.example"
    assert User.objects.get(pk=odd.pk).email == "lıee@agency.example"  # nothing matches it: see below


def test_the_data_migration_normalises_the_emails_of_existing_accounts():
    users = [User.objects.create_user(username=name) for name in ("a", "b", "c", "d")]
    for user, email in zip(users, ["Lee@Agency.Example", "lee@XN--BCHER-KVA.example", "lıee@agency.example", ""],
                           strict=True):
        User.objects.filter(pk=user.pk).update(email=email)  # as stored before (no pre_save)
    migration = importlib.import_module("accounts.migrations.0006_user_emails_stored_normalised")
    migration.normalise(apps, None)
    assert list(User.objects.order_by("username").values_list("email", flat=True)) == [
        "lee@agency.example", "lee@bücher.example", "lıee@agency.example", ""]


def test_two_accounts_whose_emails_differ_only_in_case_or_unicode_form_are_refused_as_the_same():
    office = scope_of(make_staff(Role.STATE_ADMIN, username="office"))
    staff_account_save(scope=office, account=StaffAccount(username="lee", role=Role.ANALYST,
                                                          email="Lee@Bücher.example"))
    assert User.objects.get(username="lee").email == "lee@bücher.example"
    for other, email in (("lee2", "LEE@xn--bcher-kva.EXAMPLE"), ("lee3", "lee@bu\u0308cher.example")):
        with pytest.raises(ValidationError) as refused:
            staff_account_save(scope=office, account=StaffAccount(username=other, role=Role.ANALYST, email=email))
        assert refused.value.message_dict == {"email": ["This email is another account's: lee."]}
    assert not User.objects.filter(username__in=["lee2", "lee3"]).exists()


def test_every_lookup_finds_an_account_by_any_form_of_its_email(tmp_path):
    office = scope_of(make_staff(Role.STATE_ADMIN, username="office"))
    lee = make_staff(Role.ANALYST, username="lee")
    lee.email = "lee@bücher.example"
    lee.save()
    typed = "LEE@XN--BCHER-KVA.example"
    assert password_reset_recipients(email=typed) == [lee]
    user, note = sign_on_account(claims=SignOnClaims(issuer="https://idp.example", subject="s1", email=typed,
                                                     email_verified=True), rules=SignOnRules())
    assert user == lee and "by verified email" in note
    path = tmp_path / "staff.csv"
    path.write_text(HEADER + f"Lee,{typed},,analyst,,\n", encoding="utf-8")
    assert str(staff_import(scope=office, path=path, dry_run=True).counts) == "0 new, 0 changed, 1 unchanged"


def test_a_lookalike_never_finds_the_account_it_looks_like_and_is_refused_where_it_is_entered(tmp_path):
    office = scope_of(make_staff(Role.STATE_ADMIN, username="office"))
    liee = make_staff(Role.ANALYST, username="liee")
    liee.email = "liee@agency.example"
    liee.save()
    lookalike = "lıee@agency.example"  # UPPER() of both is LIEE@AGENCY.EXAMPLE
    assert password_reset_recipients(email=lookalike) == []
    with pytest.raises(SignOnRefused, match="cannot name a staff account: This address has characters that stand"):
        sign_on_account(claims=SignOnClaims(issuer="https://idp.example", subject="s1", email=lookalike,
                                            email_verified=True), rules=SignOnRules())
    with pytest.raises(ValidationError) as refused:
        staff_account_save(scope=office, account=StaffAccount(username="other", role=Role.ANALYST, email=lookalike))
    assert "stand for other letters (ı U+0131)" in refused.value.message_dict["email"][0]
    path = tmp_path / "staff.csv"
    path.write_text(HEADER + f"other,{lookalike},,analyst,,\n", encoding="utf-8")
    [problem] = staff_import(scope=office, path=path).problems
    assert (problem.row, problem.column, problem.value) == (2, "email", lookalike)
    assert not User.objects.filter(username="other").exists()


def test_the_databases_own_case_insensitive_match_differs_between_them_and_the_normal_form_does_not():
    from django.db import connection

    liee = make_staff(Role.ANALYST, username="liee")
    liee.email = "liee@agency.example"
    liee.save()
    # PostgreSQL's UPPER() under C.UTF-8 (production's) makes LIEE of both; SQLite's case-insensitive LIKE knows
    # ASCII alone. Hence one normal form, compared exactly, the same on both.
    assert User.objects.filter(email__iexact="lıee@agency.example").exists() == (connection.vendor == "postgresql")
    assert password_reset_recipients(email="lıee@agency.example") == []
    assert password_reset_recipients(email="LIEE@AGENCY.EXAMPLE") == [liee]
