from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class SurveysConfig(AppConfig):
    name = "surveys"
    verbose_name = "Survey definitions"

    def ready(self) -> None:
        # Imported here, as Django advises: apps.py is read while the app registry fills, before models may be.
        from surveys.invalidation import definition_saved_or_deleted

        for model in ("Survey", "Page", "Question", "Choice"):
            sender = self.get_model(model)
            post_save.connect(definition_saved_or_deleted, sender=sender, dispatch_uid=f"definitions-saved-{model}")
            post_delete.connect(definition_saved_or_deleted, sender=sender, dispatch_uid=f"definitions-deleted-{model}")
