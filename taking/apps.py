from django.apps import AppConfig


class TakingConfig(AppConfig):
    """The respondent-facing screens: login, the survey pages, saving, completion (no models of its own)."""

    name = "taking"
    verbose_name = "Survey taking"
