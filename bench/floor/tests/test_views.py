import importlib
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import clear_url_caches

import config.urls
from bench.floor.models import FloorRow

pytestmark = pytest.mark.django_db


def csrf_token(html):
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


def test_the_first_get_makes_a_session_and_later_ones_only_read_it_with_one_select(django_assert_num_queries):
    client = Client(enforce_csrf_checks=True)
    first = client.get("/bench/floor/")
    assert first.status_code == 200 and "nothing yet" in first.text
    session_cookie = first.cookies["sessionid"].value
    with django_assert_num_queries(1):  # the rows; the session comes from the cache (Redis on the stack)
        again = client.get("/bench/floor/")
    assert again.status_code == 200 and "sessionid" not in again.cookies
    assert client.cookies["sessionid"].value == session_cookie


def test_a_post_with_its_csrf_token_writes_five_rows_in_one_insert_and_the_next_get_shows_them():
    client = Client(enforce_csrf_checks=True)
    token = csrf_token(client.get("/bench/floor/").text)
    with CaptureQueriesContext(connection) as queries:
        response = client.post("/bench/floor/", {"csrfmiddlewaretoken": token, **{f"v{n}": f"a{n}" for n in range(5)}})
    assert response.status_code == 200 and response.json() == {"saved": 5}
    statements = [q["sql"].split()[0] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]
    assert statements == ["INSERT"]  # the transaction's own statements are savepoints inside the test's
    assert sorted(FloorRow.objects.values_list("position", "value")) == [(n, f"a{n}") for n in range(5)]
    page = client.get("/bench/floor/").text
    assert all(f"{n}: a{n}" in page for n in range(5))


def test_a_post_without_its_csrf_token_is_refused_and_writes_nothing():
    client = Client(enforce_csrf_checks=True)
    client.get("/bench/floor/")
    assert client.post("/bench/floor/", {"v0": "x"}).status_code == 403
    assert not FloorRow.objects.exists()


def test_without_bench_floor_views_the_floor_is_not_routed(settings):
    settings.BENCH_FLOOR_VIEWS = False
    try:
        names = [getattr(pattern, "name", None) for pattern in importlib.reload(config.urls).urlpatterns]
        assert "bench-floor" not in names and "ping" in names
    finally:
        settings.BENCH_FLOOR_VIEWS = True
        importlib.reload(config.urls)
        clear_url_caches()
