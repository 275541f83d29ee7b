from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import pre_save


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Staff accounts, their scopes and the audit log"

    def ready(self) -> None:
        from accounts.emails import user_email_normalize

        pre_save.connect(user_email_normalize, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts-email-normal")
