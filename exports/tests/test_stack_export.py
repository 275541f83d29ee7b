"""An export on the live stack reads the replica, not the master. Runs only against the live stack."""

import pytest
from django.core.management import call_command
from django.test import Client

from accounts.models import AuditEntry
from deploy.tests.stack import by_database, tables
from infra.sql import table
from respondents.models import Answer, Respondent
from respondents.tests.factories import login, save_page

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True, databases="__all__")]



def test_export_reads_the_replica(respondent, tmp_path):
    taker = Client()
    login(taker, respondent)
    save_page(taker, 1, {"q-colour": "red"})
    from surveys.tests.factories import replicated

    replicated(None)
    with by_database() as (master, replica):
        call_command("export_responses", "small", "--output", str(tmp_path / "out.csv"))
    assert table(Answer) in tables(replica)
    # The master only records the export in the audit log; every read is the replica's.
    assert table(AuditEntry) in tables(master)
    assert table(Answer) not in tables(master) and table(Respondent) not in tables(master)
    assert "red" in (tmp_path / "out.csv").read_text()
