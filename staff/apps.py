from django.apps import AppConfig


class StaffConfig(AppConfig):
    name = "staff"
    verbose_name = "Staff area"

    def ready(self):
        from staff import signals  # noqa: F401  (sign-ins go to the audit log)
