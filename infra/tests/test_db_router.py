"""The router's write detection (infra/db_router.py ``_note_writes``): what pins a client to the master."""
import pytest
from balancer import pinning

from infra.db_router import _note_writes


@pytest.mark.parametrize(("sql", "writes"), [
    ('INSERT INTO "respondents_answer" VALUES (1)', True),
    ('  update "respondents_respondent" SET "status" = 1', True),
    ('DELETE FROM "respondents_answer"', True),
    # The page save: one statement of data-modifying CTEs (respondents/services.py).
    ('WITH moved AS (UPDATE "respondents_respondent" SET "current_page" = 2 RETURNING "id") SELECT count(*) FROM moved',
     True),
    ('WITH logged AS (INSERT INTO "respondents_pagesave" VALUES (1)) SELECT 1', True),
    # Reads, including a CTE and columns whose names hold a write's word: no pin.
    ('SELECT "updated_at", "last_deleted" FROM "surveys_survey"', False),
    ('WITH recent AS (SELECT "updated_at" FROM "surveys_survey") SELECT * FROM recent', False),
])
def test_a_statement_pins_the_client_to_the_master_exactly_when_it_writes(sql, writes):
    pinning.clear_db_write()
    try:
        assert _note_writes(lambda *args: "executed", sql, None, False, {}) == "executed"
        assert bool(pinning.db_was_written()) is writes
    finally:
        pinning.clear_db_write()
