from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class StaffConfig(AppConfig):
    name = "staff"
    verbose_name = "Staff area"

    def ready(self) -> None:
        # Sign-ins go to the audit log; the settings' checks.
        from staff import checks, signals, single_sign_on  # noqa: F401


class StaffAdminConfig(admin_apps.AdminConfig):
    """``django.contrib.admin`` with the audited site (``staff/admin_site.py``) as its default site; named in
    INSTALLED_APPS, not this module's default (that is StaffConfig)."""

    default = False
    default_site = "staff.admin_site.AuditedAdminSite"
