"""/admin/'s users and staff members, under the staff area's rules (``accounts.staff_accounts.account_limits``):
only a superuser changes a superuser or another state administrator, or gives anyone a superuser's powers; emails
are stored normalised and one account's (``accounts/emails.py``), and a changed one removes the account's single
sign-on links and tells its old address (``account_emails_changed``), as the staff area's form does."""
from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.contrib.auth.models import User as UserModel
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import ForeignKey
from django.forms import ModelChoiceField
from django.http import HttpRequest

from accounts.emails import EmailAddressField
from accounts.models import StaffMember
from accounts.scopes import Scope, admin_scope
from accounts.staff_accounts import EmailChange, Holder, account_emails_changed, account_limits
from infra.clients import client_ip

User = get_user_model()
# What only a superuser sets in /admin/: who is one, who enters /admin/, and what they may do there.
SUPERUSER_FIELDS = ("is_superuser", "is_staff", "groups", "user_permissions")


def _scope(request: HttpRequest) -> Scope:
    """The scope of the admin's user, worked out once a request."""
    if "_admin_scope" not in request.__dict__:
        user = request.user
        if not user.is_authenticated:  # (never: /admin/ has signed them in)
            raise PermissionDenied("not signed in")
        request.__dict__["_admin_scope"] = admin_scope(user=user, address=client_ip(request))
    return request.__dict__["_admin_scope"]


def _superuser_only(request: HttpRequest, user: UserModel) -> bool:
    """Whether only a superuser may change ``user`` (a superuser, another state administrator); once a request and
    user (the admin asks again for every link and button of a page)."""
    answers = request.__dict__.setdefault("_superuser_only", {})
    if user.pk not in answers:
        member = StaffMember.objects.select_related("user").filter(user=user).first()
        holder = (Holder.of_member(member) if member else
                  Holder(user.pk, user.get_username(), user.email, user.is_active, user.is_superuser))
        answers[user.pk] = account_limits(scope=_scope(request), holder=holder).superuser_only
    return answers[user.pk]


@admin.register(StaffMember)
class StaffMemberAdmin(admin.ModelAdmin):
    list_display = ["user", "role"]
    list_filter = ["role"]
    filter_horizontal = ["districts", "schools"]

    def get_readonly_fields(self, request: HttpRequest, obj: StaffMember | None = None) -> list[str]:
        return ["user"] if obj is not None else []

    def formfield_for_foreignkey(self, db_field: ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any,
                                 ) -> "ModelChoiceField[Any] | None":
        if db_field.name == "user":  # a role for a user without one; for a superuser, only by a superuser
            users = User.objects.filter(staff_member__isnull=True)
            kwargs["queryset"] = users if request.user.is_superuser else users.filter(is_superuser=False)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def has_change_permission(self, request: HttpRequest, obj: StaffMember | None = None) -> bool:
        return super().has_change_permission(request, obj) and not (
            obj is not None and _superuser_only(request, obj.user))

    def has_delete_permission(self, request: HttpRequest, obj: StaffMember | None = None) -> bool:
        return super().has_delete_permission(request, obj) and not (
            obj is not None and _superuser_only(request, obj.user))


class StaffUserChangeForm(UserChangeForm):
    email = EmailAddressField(label="Email address", required=False)

    def clean_email(self) -> str:
        email = self.cleaned_data["email"]
        held = list(User.objects.filter(email=email).exclude(pk=self.instance.pk).values_list("username", flat=True)
                    ) if email else []
        if held:
            raise ValidationError(f"This email is another account's: {', '.join(held)}.")
        return email


admin.site.unregister(User)


@admin.register(User)
class StaffUserAdmin(UserAdmin):
    form = StaffUserChangeForm

    def get_readonly_fields(self, request: HttpRequest, obj: UserModel | None = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))
        return fields if request.user.is_superuser else [*fields, *SUPERUSER_FIELDS]

    def has_change_permission(self, request: HttpRequest, obj: UserModel | None = None) -> bool:
        return super().has_change_permission(request, obj) and not (
            obj is not None and _superuser_only(request, obj))

    def has_delete_permission(self, request: HttpRequest, obj: UserModel | None = None) -> bool:
        return super().has_delete_permission(request, obj) and not (
            obj is not None and _superuser_only(request, obj))

    def save_model(self, request: HttpRequest, obj: UserModel, form: UserChangeForm, change: bool) -> None:
        old = (form.initial.get("email") or "") if change else ""
        super().save_model(request, obj, form, change)
        if change and old != obj.email:
            account_emails_changed(scope=_scope(request), changes=[
                EmailChange(obj.pk, obj.get_username(), old, obj.email)])
