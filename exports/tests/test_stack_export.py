"""An export on the live stack reads the replica, not the master. Runs only against the live stack."""

import pytest
from django.core.management import call_command
from django.test import Client

from deploy.tests.stack import by_database, tables
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
    assert "respondents_answer" in tables(replica)
    # The master only records the export in the audit log; every read is the replica's.
    assert "respondents_auditentry" in tables(master)
    assert "respondents_answer" not in tables(master) and "respondents_respondent" not in tables(master)
    assert "red" in (tmp_path / "out.csv").read_text()
