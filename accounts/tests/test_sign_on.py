"""Which staff account an identity provider's claims name (accounts/sign_on.py); the provider itself, Keycloak on
the stack, in staff/tests/test_email_and_sign_on.py."""
import pytest
from django.contrib.auth import get_user_model

from accounts.models import AuditEntry, SignOnIdentity, StaffMember
from accounts.sign_on import SignOnClaims, SignOnRefused, SignOnRules, sign_on_account
from respondents.tests.factories import make_staff

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
ISSUER = "https://idp.agency.example/realms/staff"
RULES = SignOnRules()


def claims(subject="sub-1", email="lee@agency.example", verified=True, **more):
    return SignOnClaims(issuer=ISSUER, subject=subject, email=email, email_verified=verified, **more)


def staff(username="lee", email="lee@agency.example", role=Role.ANALYST):
    user = make_staff(role, username=username)
    user.email = email
    user.save()
    return user


def test_the_first_sign_on_finds_the_account_by_verified_email_and_links_the_subject():
    user = staff(email="Lee@Agency.example")
    found, note = sign_on_account(claims=claims(), rules=RULES)
    assert found == user and "linked to lee by verified email" in note
    assert SignOnIdentity.objects.get().user == user


def test_once_linked_the_subject_names_the_account_whatever_the_email_becomes():
    user = staff()
    sign_on_account(claims=claims(), rules=RULES)
    assert sign_on_account(claims=claims(email="lee.new@agency.example"), rules=RULES) == (user, "")


def test_an_unverified_email_names_nobody():
    staff()
    with pytest.raises(SignOnRefused, match="has not verified the address"):
        sign_on_account(claims=claims(verified=False), rules=RULES)
    entry = AuditEntry.objects.get()
    assert entry.action == AuditEntry.Action.SIGN_IN_FAILED and "single sign-on refused" in entry.detail
    assert not SignOnIdentity.objects.exists()


def test_an_email_of_no_staff_account_names_nobody_and_makes_nothing():
    get_user_model().objects.create_user(username="plain", email="lee@agency.example")
    with pytest.raises(SignOnRefused, match="No staff account matches lee@agency.example"):
        sign_on_account(claims=claims(), rules=RULES)
    assert get_user_model().objects.count() == 1 and not SignOnIdentity.objects.exists()


def test_two_staff_accounts_with_the_email_name_nobody():
    staff("lee1")
    staff("lee2")
    with pytest.raises(SignOnRefused, match="More than one staff account"):
        sign_on_account(claims=claims(), rules=RULES)


def test_a_deactivated_account_stays_out_by_email_or_by_subject():
    user = staff()
    sign_on_account(claims=claims(), rules=RULES)
    user.is_active = False
    user.save()
    with pytest.raises(SignOnRefused, match="deactivated"):
        sign_on_account(claims=claims(), rules=RULES)


def test_matching_by_email_can_be_turned_off():
    staff()
    with pytest.raises(SignOnRefused):
        sign_on_account(claims=claims(), rules=SignOnRules(match_email=False))


def test_a_mapped_role_claim_makes_an_account_that_covers_every_school_and_nothing_else_does():
    rules = SignOnRules(role_mapping={"survey-analysts": Role.ANALYST})
    user, note = sign_on_account(claims=claims(email="new@agency.example", username="new.analyst",
                                               name="Ada Obi", roles=("staff", "survey-analysts")), rules=rules)
    member = StaffMember.objects.get(user=user)
    assert (user.username, user.first_name, user.last_name, member.role) == ("new.analyst", "Ada", "Obi", Role.ANALYST)
    assert not user.has_usable_password() and not member.schools.exists() and not member.districts.exists()
    assert note == "account made from the role claim"
    assert "created at first single sign-on" in AuditEntry.objects.get(action=AuditEntry.Action.STAFF_CHANGED).detail
    with pytest.raises(SignOnRefused):
        sign_on_account(claims=claims(subject="sub-2", email="other@agency.example", roles=("staff",)), rules=rules)


def test_a_claim_may_never_make_a_coordinator():
    with pytest.raises(ValueError, match="a coordinator's schools come from the state office"):
        SignOnRules(role_mapping={"principals": Role.SCHOOL_COORDINATOR})


def test_claims_without_a_subject_name_nobody():
    staff()
    with pytest.raises(SignOnRefused, match="no subject"):
        sign_on_account(claims=claims(subject=""), rules=RULES)


def test_the_verified_email_is_matched_in_its_normal_form_whatever_case_or_idna_form_the_provider_gives():
    user = staff(email="lee@bücher.example")
    found, _ = sign_on_account(claims=claims(email="LEE@XN--BCHER-KVA.example"), rules=RULES)
    assert found == user


@pytest.mark.parametrize("lookalike", ["lıee@agency.example", "leſ@agency.example", "ｌee@agency.example"])
def test_a_verified_email_with_letters_standing_for_others_is_refused_with_its_reason_and_links_nothing(lookalike):
    staff(username="liee", email="liee@agency.example")
    staff(username="les", email="les@agency.example")
    staff(username="lee")
    with pytest.raises(SignOnRefused) as refused:
        sign_on_account(claims=claims(email=lookalike), rules=RULES)
    reason = str(refused.value)
    assert reason.startswith(f"Your identity provider gives the address {lookalike}, which cannot name a staff "
                             "account: This address has characters that stand for other letters")
    assert not any(f"{name}@agency.example" in reason for name in ("liee", "les", "lee"))
    assert not SignOnIdentity.objects.exists()
    assert AuditEntry.objects.get(action=AuditEntry.Action.SIGN_IN_FAILED).detail.endswith(reason)


def test_an_account_made_from_a_role_claim_stores_its_email_normalised_and_a_lookalike_makes_none():
    rules = SignOnRules(role_mapping={"survey-analysts": Role.ANALYST})
    user, _ = sign_on_account(claims=claims(email="New@Agency.Example", roles=("survey-analysts",)), rules=rules)
    assert user.email == "new@agency.example" and user.username == "new@agency.example"
    with pytest.raises(SignOnRefused, match="cannot name a staff account"):
        sign_on_account(claims=claims(subject="sub-2", email="nеw@agency.example", roles=("survey-analysts",)),
                        rules=rules)  # (a Cyrillic е: no account to be taken for, but not an address mail reaches)
    assert get_user_model().objects.count() == 1
