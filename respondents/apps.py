from django.apps import AppConfig
from django.db.models.signals import post_save


class RespondentsConfig(AppConfig):
    name = "respondents"
    verbose_name = "Respondents and responses"

    def ready(self):
        from surveys.models import Survey

        post_save.connect(_purge_names_of_a_closed_survey, sender=Survey, dispatch_uid="respondents-purge-names")


def _purge_names_of_a_closed_survey(sender, instance, **kwargs):
    """A survey set to closed forgets its slip names at once (a passed closing time: manage.py purge_display_names)."""
    from respondents.services import display_names_purge

    if instance.status == instance.Status.CLOSED:
        display_names_purge(survey=instance)
