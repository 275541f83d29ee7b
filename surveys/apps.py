from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class SurveysConfig(AppConfig):
    name = "surveys"
    verbose_name = "Survey definitions"

    def ready(self):
        from surveys.caching import definitions_changed

        def changed(sender, instance, **kwargs):
            definitions_changed([instance])

        for model in ("Survey", "Page", "Question", "Choice"):
            post_save.connect(changed, sender=self.get_model(model), dispatch_uid=f"definitions-changed-{model}")
            post_delete.connect(changed, sender=self.get_model(model), dispatch_uid=f"definitions-deleted-{model}")
