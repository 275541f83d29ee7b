"""Quoted table and column names, from the models, for the statements written as SQL on the survey's hot path
(the page save in ``services``, a page's read in ``selectors``): a renamed field or table moves them too."""
from django.db import connection
from django.db.models import Field, Model


def table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def column(model: type[Model], name: str) -> str:
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or field.column is None:
        raise ValueError(f"{model.__name__}.{name} has no column of its own")
    return connection.ops.quote_name(field.column)
