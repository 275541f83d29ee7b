"""Indexes for the staff search of a survey's people at two million respondents (rosters.selectors.respondents_search),
on PostgreSQL only: built CONCURRENTLY, so that a deploy never locks the respondents table against page saves
while they build (about a minute each at two million rows; ``docs/architecture.md``, "Staff screens' reads").

- ``respondent_search_order`` (survey, school, external id, id): the search's order, so a page is read from the
  index and stops after a hundred rows, instead of sorting every match; a school's list is a range of it.
- ``respondent_external_id_prefix`` (survey, upper(external id) text_pattern_ops): "external id starts with",
  case aside (the database's collation is not C, so a plain b-tree cannot serve LIKE 'abc%'), with a finer
  histogram (STATISTICS) so that the planner sees how few an id's prefix finds.
- ``respondent_display_name_trgm`` (GIN, pg_trgm over upper(display name)): "name contains", as Django writes
  it (``UPPER(display_name::text) LIKE UPPER('%ruiz%')``), for three letters or more.

A page save updates the respondent's row (status, page, times) but none of these columns, so PostgreSQL keeps
those updates HOT (no index touched) whenever the page has room; a roster import pays for each new row in every
index, the trigram one most. Not in the model's state: SQLite (the embedded default) has no such indexes, and
its small databases need none.
"""
from django.db import migrations

INDEXES = {
    "respondent_search_order": "ON respondents_respondent (survey_id, school_id, external_id, id)",
    "respondent_external_id_prefix":
        "ON respondents_respondent (survey_id, upper(external_id::text) text_pattern_ops)",
    "respondent_display_name_trgm": "ON respondents_respondent USING gin (upper(display_name::text) gin_trgm_ops)",
}
# A finer histogram of the external ids: PostgreSQL estimates "starts with" as no rarer than one bin of it (1% with
# the default 100), and at 1% of two million it would walk the order's index instead of this one (170 ms, not 1).
# SHARE UPDATE EXCLUSIVE: page saves pass.
STATISTICS = "ALTER INDEX respondent_external_id_prefix ALTER COLUMN 2 SET STATISTICS 10000"
# pg_trgm is a trusted extension (PostgreSQL 13 and later): the database's owner may create it.
EXTENSION = "CREATE EXTENSION IF NOT EXISTS pg_trgm"


def create_sql():
    """The statements that build the indexes (the bench runs them too, on a database migrated without them)."""
    return ([EXTENSION] + [f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} {spec}" for name, spec in INDEXES.items()]
            + [STATISTICS, "ANALYZE respondents_respondent"])


class OnPostgreSQL(migrations.RunSQL):
    """RunSQL that does nothing on another database."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY runs outside a transaction

    dependencies = [
        ("respondents", "0015_models_to_their_apps"),
    ]

    operations = [
        OnPostgreSQL(sql=create_sql(),
                     reverse_sql=[f"DROP INDEX CONCURRENTLY IF EXISTS {name}" for name in INDEXES]),
    ]
