"""Quoted table and column names, from the models, for every statement written as SQL (the page save, a page's read,
a roster's upsert, the results' COPY, the bench's seeding): no table name is typed, so a renamed field or table moves
them too."""
from django.db import connection
from django.db.models import Field, Model


def table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def column(model: type[Model], name: str) -> str:
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or field.column is None:
        raise ValueError(f"{model.__name__}.{name} has no column of its own")
    return connection.ops.quote_name(field.column)
