from django.apps import AppConfig


class RespondentsConfig(AppConfig):
    name = "respondents"
    verbose_name = "Respondents and responses"
