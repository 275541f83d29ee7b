"""The router's write detection (infra/db_router.py ``_note_writes``): what pins a client to the master."""
import pytest
from balancer import pinning

from infra.db_router import _note_writes
from infra.sql import table
from respondents.models import Answer, PageSave, Respondent
from surveys.models import Survey


@pytest.mark.parametrize(("sql", "writes"), [
    (f"INSERT INTO {table(Answer)} VALUES (1)", True),
    (f'  update {table(Respondent)} SET "status" = 1', True),
    (f"DELETE FROM {table(Answer)}", True),
    # The page save: one statement of data-modifying CTEs (respondents/services.py).
    (f'WITH moved AS (UPDATE {table(Respondent)} SET "current_page" = 2 RETURNING "id") SELECT count(*) FROM moved',
     True),
    (f"WITH logged AS (INSERT INTO {table(PageSave)} VALUES (1)) SELECT 1", True),
    # Reads, including a CTE and columns whose names hold a write's word: no pin.
    (f'SELECT "updated_at", "last_deleted" FROM {table(Survey)}', False),
    (f'WITH recent AS (SELECT "updated_at" FROM {table(Survey)}) SELECT * FROM recent', False),
])
def test_a_statement_pins_the_client_to_the_master_exactly_when_it_writes(sql, writes):
    pinning.clear_db_write()
    try:
        assert _note_writes(lambda *args: "executed", sql, None, False, {}) == "executed"
        assert bool(pinning.db_was_written()) is writes
    finally:
        pinning.clear_db_write()
