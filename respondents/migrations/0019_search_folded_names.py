"""Names found with their accents, case and punctuation aside ("garcia" finds "García"), on PostgreSQL: the
``unaccent`` extension, an immutable function over it, ``respondent_name_folded(text)`` (``respondents/
name_folding.py`` says what it makes of a name), and a trigram index over the folded names,
``respondent_display_name_folded_trgm``, which takes the place of 0016's over ``upper(display_name)``.

``unaccent()`` is only STABLE (its rules are a file a server could change), so an index cannot use it directly:
the wrapper names its dictionary and function by schema and is declared IMMUTABLE, the usual way (an edited rules
file, or a new body of the function, needs a REINDEX of the index). Its body is SQL-standard (``RETURN``),
resolved when it is made, so neither a caller's search_path nor a dump's restore changes what it calls. The index
is built CONCURRENTLY (page saves pass), then the one it replaces is dropped. Access codes by prefix need nothing
new: the ``varchar_pattern_ops`` index Django made with the unique code (``respondents_respondent_access_code_...
_like``) serves ``LIKE 'ABC%'``, which the unique b-tree cannot in a C.UTF-8 database (``docs/architecture.md``,
"Staff screens' reads").

SQLite (the embedded default) gets the function on each connection from ``respondents/name_folding.py``: nothing
to migrate there.
"""
from django.db import migrations

FUNCTION = "respondent_name_folded"
INDEXES = {
    "respondent_display_name_folded_trgm":
        f"ON respondents_respondent USING gin ({FUNCTION}(display_name::text) gin_trgm_ops)",
}
# 0016's index over upper(display_name), which no search reads any more.
REPLACED = {
    "respondent_display_name_trgm": "ON respondents_respondent USING gin (upper(display_name::text) gin_trgm_ops)",
}
# unaccent is a trusted extension (PostgreSQL 13 and later): the database's owner may create it.
EXTENSION = "CREATE EXTENSION IF NOT EXISTS unaccent"
SCHEMA = "SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'unaccent'"


def function_sql(schema):
    """The function, calling unaccent in ``schema`` (where the extension is, as quoted by regnamespace)."""
    return (f"CREATE OR REPLACE FUNCTION {FUNCTION}(name text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE "
            f"STRICT RETURN ' ' || upper(regexp_replace({schema}.unaccent('{schema}.unaccent'::regdictionary, name), "
            f"'[^[:alnum:]]+', ' ', 'g'))")


def function_create(cursor):
    """Create the extension and the function with ``cursor`` (the bench runs this too)."""
    cursor.execute(EXTENSION)
    cursor.execute(SCHEMA)
    cursor.execute(function_sql(cursor.fetchone()[0]))


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        function_create(cursor)
        for name, spec in INDEXES.items():
            cursor.execute(f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} {spec}")
        for name in REPLACED:
            cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
        cursor.execute("ANALYZE respondents_respondent")


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        for name, spec in REPLACED.items():
            cursor.execute(f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} {spec}")
        for name in INDEXES:
            cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
        cursor.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}(text)")


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY runs outside a transaction

    dependencies = [
        ("respondents", "0018_login_limit_hits"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards, elidable=False),
    ]
