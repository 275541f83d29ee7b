"""Staff accounts (state administrators): the list (found, filtered, a page at a time, chosen for bulk
deactivation or reactivation), one account's form, and staff files (upload, check, apply or discard)."""
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from accounts.staff_accounts import staff_account_problems, staff_account_save, staff_accounts, staff_accounts_set_active
from accounts.staff_import import (
    StaffImportNotReady,
    staff_upload_apply,
    staff_upload_check,
    staff_upload_counts,
    staff_upload_discard,
    staff_uploads,
)
from config.request_guard import accepts_uploads
from respondents.code_lists import join_codes
from staff.access import staff_view
from staff.forms import ConfirmForm, StaffAccountForm, StaffIdsForm, StaffSearchForm, StaffUploadForm
from staff.views.lists import CONFIRM_SHOWN, PROBLEMS_SHOWN, back_to, page_of
from staff.views.uploads import check_uploaded_file, discard_checked_file

CHANGES_SHOWN = 200  # accounts listed with what a file changes in them; the counts say how many in all


@staff_view("can_manage_staff")
def staff_list(request):
    """The staff accounts, found by user name, email or name and filtered by role and sign-in, a page at a time."""
    search = StaffSearchForm(request.GET or None)
    return render(request, "staff/staff_list.html", {
        "search": search, "page": page_of(request, staff_accounts(scope=request.scope, **search.filters()))})


@staff_view("can_manage_staff")
def staff_edit(request, user_id=None):
    member = None
    if user_id is not None:
        member = get_object_or_404(staff_accounts(scope=request.scope), user_id=user_id)
        initial = {"username": member.user.username, "email": member.user.email, "name": member.name,
                   "role": member.role, "is_active": member.user.is_active,
                   "district_codes": join_codes(d.code for d in member.districts.all()),
                   "school_codes": join_codes(s.code for s in member.schools.all())}
    else:
        initial = {"is_active": True}
    form = StaffAccountForm(request.POST or None, initial=initial)
    if member is not None:
        form.fields["username"].disabled = True
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
    return render(request, "staff/staff_edit.html", {"form": form, "member": member})


@require_http_methods(["GET", "HEAD", "POST"])
@staff_view("can_manage_staff")
def staff_deactivate(request):
    """Stop the accounts chosen on the list from signing in: first a page that lists them (never the
    administrator's own), whose button posts them again with ``confirm``; only that changes them."""
    return _set_active(request, active=False)


@require_http_methods(["GET", "HEAD", "POST"])
@staff_view("can_manage_staff")
def staff_reactivate(request):
    """Let the accounts chosen sign in again, after the same confirm page."""
    return _set_active(request, active=True)


def _set_active(request, *, active):
    back = back_to(request, reverse("staff:staff-list"))
    form = StaffIdsForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors["user"]))
        return redirect(back)
    chosen = set(form.cleaned_data["user"])
    own = not active and request.scope.user_id in chosen
    # Those the service would change: staff accounts not so already, never the administrator's own.
    members = staff_accounts(scope=request.scope).filter(user_id__in=chosen, user__is_active=not active).exclude(
        user_id=request.scope.user_id)
    ids = list(members.values_list("user_id", flat=True))
    if ConfirmForm.confirmed(request):
        changed = staff_accounts_set_active(scope=request.scope, user_ids=ids, active=active)
        count = ngettext("%(count)s account", "%(count)s accounts", len(changed)) % {"count": len(changed)}
        messages.success(request, (_("%(count)s reactivated: they can sign in again.") if active else
                                   _("%(count)s deactivated: they can no longer sign in.")) % {"count": count})
        return redirect(back)
    verb = _("Reactivate") if active else _("Deactivate")
    return render(request, "staff/confirm_staff_active.html", {
        "active": active, "ids": ids, "members": members[:CONFIRM_SHOWN], "back": back, "own": own,
        "left_out": len(chosen) - len(ids) - own,
        "hidden": [("user", pk) for pk in ids] + [("next", back)],
        "button": f"{verb} " + ngettext("%(count)s account", "%(count)s accounts", len(ids)) % {"count": len(ids)}})


@accepts_uploads
@staff_view("can_manage_staff")
def staff_import(request):
    """Upload a staff file: it is checked, and its page shows every problem, or what applying it would do."""
    form = StaffUploadForm(request.POST or None, request.FILES or None)
    checked = check_uploaded_file(request, form, staff_upload_check)
    if checked is not None:
        return redirect("staff:staff-upload", upload_id=checked.pk)
    return render(request, "staff/staff_import.html", {
        "form": form, "uploads": staff_uploads(scope=request.scope)[:10]}, status=400 if form.errors else 200)


@staff_view("can_manage_staff")
def staff_upload(request, upload_id):
    upload = get_object_or_404(staff_uploads(scope=request.scope), pk=upload_id)
    return render(request, "staff/staff_upload.html", {
        "upload": upload, "problems": upload.problems()[:PROBLEMS_SHOWN],
        "counts": staff_upload_counts(upload), "changes": upload.changes[:CHANGES_SHOWN]})


@require_POST
@staff_view("can_manage_staff")
def staff_upload_apply_view(request, upload_id):
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
def staff_upload_discard_view(request, upload_id):
    return discard_checked_file(request, uploads=staff_uploads(scope=request.scope), upload_id=upload_id,
                                discard=staff_upload_discard, upload_page="staff:staff-upload",
                                done_page="staff:staff-list")
