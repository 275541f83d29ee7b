"""Quoted table and column names, from the models, for the statements written as SQL on the survey's hot path
(the page save in ``services``, a page's read in ``selectors``): a renamed field or table moves them too."""
from django.db import connection


def table(model):
    return connection.ops.quote_name(model._meta.db_table)


def column(model, name):
    return connection.ops.quote_name(model._meta.get_field(name).column)
