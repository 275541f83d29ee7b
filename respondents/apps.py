from django.apps import AppConfig
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created

from respondents.name_folding import sqlite_function_register


class RespondentsConfig(AppConfig):
    name = "respondents"
    verbose_name = "Respondents and responses"

    def ready(self) -> None:
        connection_created.connect(_fold_names_on_sqlite, dispatch_uid="respondents-name-folded")


def _fold_names_on_sqlite(sender: object, connection: BaseDatabaseWrapper, **kwargs: object) -> None:
    """The embedded default's SQLite has no ``respondent_name_folded`` of its own: give each connection one."""
    sqlite_function_register(connection)
