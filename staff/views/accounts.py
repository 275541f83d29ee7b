"""Staff accounts (state administrators): the list (found, filtered, a page at a time, chosen for bulk
deactivation or reactivation, or to be sent their invitation again), one account's form and its single sign-on
links, and staff files (upload, check, apply or discard)."""
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST
from django_ratelimit.core import get_usage

from accounts.models import SignOnIdentity
from accounts.passwords import password_invitations, password_mails_sent_record, password_set_tokens
from accounts.staff_accounts import (
    SUPERUSER_ONLY,
    Holder,
    account_limits,
    sign_on_identities,
    sign_on_identity_unlink,
    staff_account_problems,
    staff_account_save,
    staff_accounts,
    staff_accounts_set_active,
)
from accounts.staff_import import (
    StaffImportNotReady,
    staff_upload_apply,
    staff_upload_check,
    staff_upload_counts,
    staff_upload_discard,
    staff_uploads,
)
from infra.request_guard import accepts_uploads
from respondents.code_lists import join_codes
from staff.access import StaffRequest, staff_view
from staff.forms.accounts import StaffAccountForm, StaffIdsForm, StaffSearchForm, StaffUploadForm
from staff.forms.confirm import ConfirmForm
from staff.password_mail import lifetime_text
from staff.tasks import password_mails_send_task
from staff.views.lists import CONFIRM_SHOWN, PROBLEMS_SHOWN, back_to, page_of
from staff.views.uploads import check_uploaded_file, discard_checked_file

CHANGES_SHOWN = 200  # accounts listed with what a file changes in them; the counts say how many in all
NAMES_SHOWN = 10  # user names a message lists; "and N more" for the rest


@staff_view("can_manage_staff")
def staff_list(request: StaffRequest) -> HttpResponse:
    """The staff accounts, found by user name, email or name and filtered by role and sign-in, a page at a time."""
    search = StaffSearchForm(request.GET or None)
    return render(request, "staff/staff_list.html", {
        "search": search, "page": page_of(request, staff_accounts(scope=request.scope, **search.filters())),
        "local_passwords": settings.STAFF_LOCAL_PASSWORDS})


@staff_view("can_manage_staff")
def staff_edit(request: StaffRequest, user_id: int | None = None) -> HttpResponse:
    """A new account's form, or an account's: its form (what the scope may not change of it disabled, and why), and
    its single sign-on links. A superuser's account is shown, never changed: /admin/ changes it."""
    member, limits, identities = None, None, []
    if user_id is not None:
        member = get_object_or_404(staff_accounts(scope=request.scope), user_id=user_id)
        limits = account_limits(scope=request.scope, holder=Holder.of_member(member))
        identities = list(sign_on_identities(scope=request.scope, user_id=member.user_id))
        initial = {"username": member.user.username, "email": member.user.email, "name": member.name,
                   "role": member.role, "is_active": member.user.is_active,
                   "district_codes": join_codes(d.code for d in member.districts.all()),
                   "school_codes": join_codes(s.code for s in member.schools.all())}
    else:
        initial = {"is_active": True}
    context = {"member": member, "limits": limits, "identities": identities,
               "local_passwords": settings.STAFF_LOCAL_PASSWORDS,
               "invitation_lifetime": lifetime_text(password_set_tokens.lifetime())}
    if limits and limits.untouchable:
        if request.method == "POST":
            raise PermissionDenied(limits.untouchable)
        return render(request, "staff/staff_edit.html", context)
    form = StaffAccountForm(request.POST or None, initial=initial)
    if member is not None:
        form.fields["username"].disabled = True
    if limits and limits.superuser_only:
        for name in ("email", "role", "is_active", "district_codes", "school_codes"):
            form.fields[name].disabled = True
    if request.method == "POST":
        # Every problem in one round trip: the form's own, and the service's on what the form could read.
        user_id = member.user_id if member else None
        if not form.is_valid():
            form.add_problems(staff_account_problems(scope=request.scope, account=form.account(),
                                                     password=form.cleaned_data.get("password"), user_id=user_id))
        else:
            account = form.account()
            try:
                staff_account_save(scope=request.scope, account=account, password=form.cleaned_data["password"],
                                   user_id=user_id)
            except ValidationError as error:
                form.add_problems(error.message_dict)
            else:
                messages.success(request, _("The account %(name)s was saved.") % {"name": account.username})
                return redirect("staff:staff-list")
    return render(request, "staff/staff_edit.html", {**context, "form": form})


@require_POST
@staff_view("can_manage_staff")
def staff_invite(request: StaffRequest, user_id: int | None = None) -> HttpResponse:
    """Send the "set your password" email again: to one account (``user_id``: its row's button, its page) or to
    those chosen on the list. Only accounts still waiting for their first password get it
    (``password_invitations``), each at most ``STAFF_INVITATION_RATE_PER_ACCOUNT``; the Celery task sends and audits
    it, and the message says who was left out and why."""
    if not settings.STAFF_LOCAL_PASSWORDS:
        raise Http404("Passwords are turned off: staff sign in with the agency's identity provider.")
    if user_id is not None:
        ids = [get_object_or_404(staff_accounts(scope=request.scope), user_id=user_id).user_id]
        back = back_to(request, reverse("staff:staff-edit", args=[user_id]))
    else:
        back = back_to(request, reverse("staff:staff-list"))
        form = StaffIdsForm(request.POST)
        if not form.is_valid():
            messages.error(request, " ".join(str(message) for message in form.errors["user"]))
            return redirect(back)
        ids = form.cleaned_data["user"]
    invitations = password_invitations(scope=request.scope, user_ids=ids)
    allowed, limited, wait = [], [], 0
    for user in invitations.waiting:
        usage = get_usage(request, group="staff-invitation", key=lambda group, request, pk=user.pk: str(pk),
                          rate=settings.STAFF_INVITATION_RATE_PER_ACCOUNT, increment=True)
        if usage is not None and usage["should_limit"]:
            limited.append(user)
            wait = max(wait, usage["time_left"])
        else:
            allowed.append(user)
    scope = request.scope
    if allowed:
        password_mails_send_task.delay(role=scope.role, user_id=scope.user_id, username=scope.username,
                                       address=scope.address, user_ids=[user.pk for user in allowed], again=True)
        messages.success(request, ngettext(
            "The invitation to set a password was sent again to %(names)s.",
            "The invitation to set a password was sent again to %(count)s accounts: %(names)s.", len(allowed)) % {
            "count": len(allowed), "names": _names([user.get_username() for user in allowed])})
    if limited:
        password_mails_sent_record(scope=scope, users=[], limited=limited)
        messages.error(request, _("Not sent again to %(names)s: it was sent too often just now. Try again in "
                                  "%(minutes)s minutes.") % {
            "names": _names([user.get_username() for user in limited]), "minutes": max(1, round(wait / 60))})
    if invitations.left_out:
        messages.info(request, _("Not sent to %(reasons)s.") % {"reasons": "; ".join(
            f"{_names(names)} ({reason})" for reason, names in invitations.left_out.items())})
    if not (allowed or limited or invitations.left_out):
        messages.error(request, _("No staff account was chosen."))
    return redirect(back)


def _names(names: list[str]) -> str:
    """User names for a message: the first NAMES_SHOWN, then how many more."""
    shown = ", ".join(names[:NAMES_SHOWN])
    more = len(names) - NAMES_SHOWN
    return shown if more <= 0 else ngettext("%(shown)s and %(more)s more", "%(shown)s and %(more)s more", more) % {
        "shown": shown, "more": more}


@require_http_methods(["GET", "HEAD", "POST"])
@staff_view("can_manage_staff")
def staff_sign_on_unlink(request: StaffRequest, user_id: int, identity_id: int) -> HttpResponse:
    """Remove one single sign-on link of an account, after a confirm page; only where the scope may change the
    account's sign-in (another state administrator's: a superuser)."""
    member = get_object_or_404(staff_accounts(scope=request.scope), user_id=user_id)
    identity = get_object_or_404(sign_on_identities(scope=request.scope, user_id=member.user_id), pk=identity_id)
    if account_limits(scope=request.scope, holder=Holder.of_member(member)).superuser_only:
        raise PermissionDenied(SUPERUSER_ONLY.format(what="single sign-on links"))
    back = reverse("staff:staff-edit", args=[member.user_id])
    if ConfirmForm.confirmed(request):
        try:
            sign_on_identity_unlink(scope=request.scope, user_id=member.user_id, identity_id=identity.pk)
        except SignOnIdentity.DoesNotExist:
            messages.error(request, _("That single sign-on link was removed already."))
        else:
            messages.success(request, _("The single sign-on link of %(name)s to %(issuer)s was removed.") % {
                "name": member.user.username, "issuer": identity.issuer})
        return redirect(back)
    return render(request, "staff/confirm_sign_on_unlink.html", {
        "member": member, "identity": identity, "back": back})


@require_http_methods(["GET", "HEAD", "POST"])
@staff_view("can_manage_staff")
def staff_deactivate(request: StaffRequest) -> HttpResponse:
    """Stop the accounts chosen on the list from signing in: first a page that lists them (never the
    administrator's own), whose button posts them again with ``confirm``; only that changes them."""
    return _set_active(request, active=False)


@require_http_methods(["GET", "HEAD", "POST"])
@staff_view("can_manage_staff")
def staff_reactivate(request: StaffRequest) -> HttpResponse:
    """Let the accounts chosen sign in again, after the same confirm page."""
    return _set_active(request, active=True)


def _set_active(request: StaffRequest, *, active: bool) -> HttpResponse:
    back = back_to(request, reverse("staff:staff-list"))
    form = StaffIdsForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        messages.error(request, " ".join(str(message) for message in form.errors["user"]))
        return redirect(back)
    chosen = set(form.cleaned_data["user"])
    own = not active and request.scope.user_id in chosen
    # Those the service would change: staff accounts not so already, that the scope may change (account_limits),
    # never the administrator's own.
    others = (staff_accounts(scope=request.scope).filter(user_id__in=chosen)
              .exclude(user_id=request.scope.requester_id()))
    locked = {m.user_id for m in others if account_limits(scope=request.scope, holder=Holder.of_member(m)).locked}
    members = [m for m in others if m.user_id not in locked and m.user.is_active != active]
    protected = len(locked)
    ids = [m.user_id for m in members]
    if ConfirmForm.confirmed(request):
        try:
            changed = staff_accounts_set_active(scope=request.scope, user_ids=ids, active=active)
        except ValidationError as error:  # (an account became an administrator's since the confirm page)
            messages.error(request, " ".join(error.messages))
            return redirect(back)
        count = ngettext("%(count)s account", "%(count)s accounts", len(changed)) % {"count": len(changed)}
        messages.success(request, (_("%(count)s reactivated: they can sign in again.") if active else
                                   _("%(count)s deactivated: they can no longer sign in.")) % {"count": count})
        return redirect(back)
    verb = _("Reactivate") if active else _("Deactivate")
    return render(request, "staff/confirm_staff_active.html", {
        "active": active, "ids": ids, "members": members[:CONFIRM_SHOWN], "back": back, "own": own,
        "protected": protected, "left_out": len(chosen) - len(ids) - own - protected,
        "hidden": [("user", pk) for pk in ids] + [("next", back)],
        "button": f"{verb} " + ngettext("%(count)s account", "%(count)s accounts", len(ids)) % {"count": len(ids)}})


@accepts_uploads
@staff_view("can_manage_staff")
def staff_import(request: StaffRequest) -> HttpResponse:
    """Upload a staff file: it is checked, and its page shows every problem, or what applying it would do."""
    form = StaffUploadForm(request.POST or None, request.FILES or None)
    checked = check_uploaded_file(request, form, staff_upload_check)
    if checked is not None:
        return redirect("staff:staff-upload", upload_id=checked.pk)
    return render(request, "staff/staff_import.html", {
        "form": form, "uploads": staff_uploads(scope=request.scope)[:10]}, status=400 if form.errors else 200)


@staff_view("can_manage_staff")
def staff_upload(request: StaffRequest, upload_id: int) -> HttpResponse:
    upload = get_object_or_404(staff_uploads(scope=request.scope), pk=upload_id)
    return render(request, "staff/staff_upload.html", {
        "upload": upload, "problems": upload.problems()[:PROBLEMS_SHOWN],
        "counts": staff_upload_counts(upload), "changes": upload.changes[:CHANGES_SHOWN]})


@require_POST
@staff_view("can_manage_staff")
def staff_upload_apply_view(request: StaffRequest, upload_id: int) -> HttpResponse:
    upload = get_object_or_404(staff_uploads(scope=request.scope), pk=upload_id)
    try:
        result = staff_upload_apply(scope=request.scope, upload_id=upload.pk)
    except StaffImportNotReady as error:
        messages.error(request, str(error))
    else:
        if result.applied:
            created = len(result.created_user_ids) if settings.STAFF_LOCAL_PASSWORDS else 0
            messages.success(request, ngettext(
                "Applied: %(counts)s. %(created)s new account was emailed a link to set its password.",
                "Applied: %(counts)s. %(created)s new accounts were emailed a link to set their password.", created) % {
                "counts": result.counts, "created": created} if created else _("Applied: %(counts)s.") % {
                "counts": result.counts})
    return redirect("staff:staff-upload", upload_id=upload.pk)


@require_POST
@staff_view("can_manage_staff")
def staff_upload_discard_view(request: StaffRequest, upload_id: int) -> HttpResponse:
    return discard_checked_file(request, uploads=staff_uploads(scope=request.scope), upload_id=upload_id,
                                discard=staff_upload_discard, upload_page="staff:staff-upload",
                                done_page="staff:staff-list")
