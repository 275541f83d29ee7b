"""Definitions cached in the live stack's memcached (surveys/caching.py): read from it the second time, never
served stale after a change, and pages still work with memcached down. Runs only against the live stack."""

import pytest
from django.conf import settings

from deploy.tests import stack
from deploy.tests.stack import AJAX, answers_on_master, by_database, tables
from respondents.tests.factories import save_page
from surveys.caching import clear_definition_cache
from surveys.models import Choice

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True, databases="__all__")]



def test_the_second_view_of_a_page_reads_its_definition_from_memcached(taker):
    assert settings.CACHES["default"]["BACKEND"].endswith("PyMemcacheCache")
    clear_definition_cache()
    with by_database() as (master, replica):
        taker.get("/take/page/2/", headers=AJAX)
    assert "surveys_" in tables(replica)
    with by_database() as (master, replica):
        taker.get("/take/page/2/", headers=AJAX)
    assert "surveys_" not in tables(master) + tables(replica)


def test_a_changed_definition_is_never_served_stale(taker, respondent):
    choice = Choice.objects.get(question__survey=respondent.survey, value="blue")
    for round_ in range(10):
        assert 'value="blue"' in taker.get("/take/page/1/").content.decode()  # cached now
        choice.label = f"Blue, take {round_}"
        choice.save()  # on the master; invalidated on commit and after the replica replays it
        html = taker.get("/take/page/1/").content.decode()
        assert f"Blue, take {round_}" in html, f"stale label in round {round_}"


def test_with_memcached_down_pages_still_work(taker, respondent):
    stack.stop_memcached()
    try:
        assert taker.get("/take/").status_code == 200
        assert save_page(taker, 1, {"q-colour": "red"}).json()["saved"] is True
        assert "Favourite colour?" in taker.get("/take/page/1/", headers=AJAX).content.decode()
    finally:
        stack.start_missing()
    assert answers_on_master(respondent)["colour"] == "red"
