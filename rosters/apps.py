from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.apps import AppConfig
from django.db.models.signals import post_save

if TYPE_CHECKING:
    from surveys.models import Survey


class RostersConfig(AppConfig):
    name = "rosters"
    verbose_name = "Rosters, the school directory, access codes' reissue and slips"

    def ready(self) -> None:
        from surveys.models import Survey  # models are importable only once the apps are ready

        post_save.connect(_purge_names_of_a_closed_survey, sender=Survey, dispatch_uid="respondents-purge-names")


def _purge_names_of_a_closed_survey(sender: type[Survey], instance: Survey, **kwargs: Any) -> None:
    """A survey set to closed forgets its slip names at once (a passed closing time: manage.py purge_display_names)."""
    from rosters.services import display_names_purge  # services import models: not at app loading time

    if instance.status == instance.Status.CLOSED:
        display_names_purge(survey=instance)
