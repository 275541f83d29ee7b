from django.contrib import admin

from accounts.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """The staff audit log, read-only: append-only everywhere (accounts.models.AuditEntry)."""

    list_display = ["at", "username", "action", "survey", "school", "address", "detail"]
    list_filter = ["action"]
    search_fields = ["username", "detail"]

    def has_add_permission(self, request: object) -> bool:
        return False

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: object, obj: object = None) -> bool:
        return False


# Users and staff members are the staff area's (staff/admin.py): /admin/ changes them under its rules.
