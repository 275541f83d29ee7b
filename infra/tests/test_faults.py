"""A backing service away for a moment is answered 503 with Retry-After, never 500 (infra/faults.py)."""
import pytest
from django.db import InterfaceError, OperationalError
from django.test import Client
from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import ConnectionError as RedisConnectionError

from respondents.models import Answer, PageSave
from respondents.tests.factories import save_page

pytestmark = pytest.mark.django_db

AJAX = {"X-Requested-With": "XMLHttpRequest"}


@pytest.mark.parametrize("fault", [
    OperationalError("server closed the connection unexpectedly"), InterfaceError("connection already closed"),
    RedisConnectionError("Connection refused"), BrokerError("No master found for 'survey'"),
])
def test_a_save_that_meets_a_passing_fault_gets_503_json_with_retry_after_and_saves_nothing(taker, monkeypatch, fault):
    def away(**kwargs):
        raise fault

    monkeypatch.setattr("taking.views.page_save", away)
    response = save_page(taker, 1, {"q-colour": "red"})
    assert response.status_code == 503 and response["Retry-After"] == "2"
    assert response.json()["saved"] is False and "try again" in response.json()["errors"]["__all__"][0]
    assert not Answer.objects.exists() and not PageSave.objects.exists()


@pytest.mark.django_db(transaction=True)  # outside a test transaction: the connection may be closed
def test_a_save_refused_by_a_server_that_became_read_only_gets_503_and_drops_the_connection(taker, monkeypatch):
    """A leader that demoted itself (Patroni, cut off from etcd) still holds connections made to it: a write there
    fails with SQLSTATE 25006, which is the leader moving, not a bug."""
    from django.db import InternalError, connections
    from psycopg2.errors import ReadOnlySqlTransaction

    def refused(**kwargs):
        connections["default"].ensure_connection()
        connections["default"].close_at = None  # persistent, as production's (DATABASE_CONN_MAX_AGE)
        try:
            raise ReadOnlySqlTransaction("cannot execute UPDATE in a read-only transaction")
        except ReadOnlySqlTransaction as cause:
            raise InternalError(str(cause)) from cause

    closed = []
    monkeypatch.setattr("taking.views.page_save", refused)
    monkeypatch.setattr(type(connections["default"]), "close", lambda self: closed.append(self.alias))
    response = save_page(taker, 1, {"q-colour": "red"})
    assert response.status_code == 503 and response["Retry-After"] == "2" and response.json()["saved"] is False
    assert "default" in closed


def test_other_internal_errors_are_still_errors(taker, monkeypatch):
    from django.db import InternalError

    def broken(**kwargs):
        raise InternalError("current transaction is aborted")

    monkeypatch.setattr("taking.views.page_save", broken)
    with pytest.raises(InternalError):
        save_page(taker, 1, {"q-colour": "red"})


def test_a_page_that_meets_a_passing_fault_gets_a_calm_page_that_tries_again_by_itself(taker, monkeypatch):
    def away(**kwargs):
        raise OperationalError("the database system is starting up")

    monkeypatch.setattr("taking.views.answers_for_questions", away)
    response = taker.get("/take/")
    assert response.status_code == 503 and response["Retry-After"] == "2" and response["Refresh"] == "5"
    assert "busy for a moment" in response.content.decode()


def test_other_errors_are_still_errors(taker, monkeypatch):
    def broken(**kwargs):
        raise ValueError("a bug")

    monkeypatch.setattr("taking.views.page_save", broken)
    with pytest.raises(ValueError):
        save_page(taker, 1, {"q-colour": "red"})


def test_a_session_store_that_cannot_be_reached_answers_login_with_503_and_retry_after(settings, respondent):
    settings.SESSION_ENGINE = "infra.sessions"
    settings.CACHES = {**settings.CACHES, "sessions": {
        "BACKEND": "infra.sessions.RedisCache", "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.2},
    }}
    settings.SESSION_CACHE_ALIAS = "sessions"
    response = Client().post("/", {"access_code": respondent.access_code})
    assert response.status_code == 503 and response["Retry-After"] == "2"
    assert "cannot log you in right now" in response.content.decode()


def test_object_storage_that_cannot_be_reached_answers_a_staff_download_with_503(client, monkeypatch):
    """S3 (MinIO on the stack) away while a roster is stored or an export read: a retryable fault, not 500."""
    from botocore.exceptions import EndpointConnectionError

    from accounts.models import StaffMember
    from respondents.tests.factories import make_staff
    from surveys.tests.factories import make_survey

    survey = make_survey()
    client.force_login(make_staff(StaffMember.Role.ANALYST))

    def away(**kwargs):
        raise EndpointConnectionError(endpoint_url="http://127.0.0.1:29000/survey-media")

    monkeypatch.setattr("staff.views.exports.export_job_start", away)
    response = client.post(f"/staff/surveys/{survey.slug}/exports/", {
        "format": "csv", "answers": "values", "multiple": "joined", "roster_fields": ["grade"]})
    assert response.status_code == 503 and response["Retry-After"] == "2"
