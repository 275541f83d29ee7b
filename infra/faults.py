"""Faults that pass: a database, pgbouncer or Redis away for a few seconds is answered "try again", never 500.

A restart of pgbouncer or PostgreSQL, or of Redis, makes the view's query or
cache call fail with ``OperationalError``/``InterfaceError`` (psycopg2 through
Django) or ``RedisError``/``OSError``. ``RetryableFaultMiddleware`` answers
those with 503 and ``Retry-After``: JSON for Ajax, which survey.js retries
with the same ``save_id`` (the page-save log applies a save once, so a save
whose COMMIT may or may not have happened is safe to send again), and a calm
page otherwise. The connection the fault broke is closed at once, and the
next request opens a new one. A session store that cannot be reached is
the same kind of fault: see ``infra/sessions.py`` and ``respondent_required``.
So is S3 (MinIO on the stack) that cannot be reached while a roster is
uploaded or a slips PDF or export is read: botocore's connection errors. And
so is Celery's broker away while a staff action queues a task (kombu's
``OperationalError``: Redis between a primary's loss and Sentinel's promotion).
And so is a write that reached a PostgreSQL server which is read-only now: a
leader that demoted itself when it lost the DCS (Patroni), reached through a
connection made before (``InternalError`` from psycopg2's
``ReadOnlySqlTransaction``, SQLSTATE 25006). Nothing was written; that
connection is closed, and the retry finds the new leader.
"""
import logging
from collections.abc import Callable

from botocore.exceptions import ConnectionError as S3ConnectionError
from botocore.exceptions import ReadTimeoutError
from django.db import InterfaceError, InternalError, OperationalError, connections
from django.http import HttpRequest, HttpResponse
from kombu.exceptions import OperationalError as BrokerError
from psycopg2.errors import ReadOnlySqlTransaction
from redis.exceptions import RedisError

from infra import errors

log = logging.getLogger(__name__)

RETRYABLE = (OperationalError, InterfaceError, RedisError, ConnectionError, TimeoutError,
             S3ConnectionError, ReadTimeoutError, BrokerError)
RETRY_AFTER_SECONDS = 2


class RetryableFaultMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        read_only = read_only_server(exception)
        if not (read_only or isinstance(exception, RETRYABLE)):
            return None
        log.warning("%s %s: a backing service is away (%s); answered 503", request.method, request.path, exception)
        # Drop a connection the fault broke now, so that the next request opens a new one; one that reached a
        # read-only server answers SELECT 1 well, and is dropped all the same.
        for connection in connections.all(initialized_only=True):
            if not connection.in_atomic_block:
                if read_only:
                    connection.close()
                else:
                    connection.close_if_unusable_or_obsolete()
        return errors.try_again(request, seconds=RETRY_AFTER_SECONDS)


def read_only_server(exception: BaseException) -> bool:
    """Whether ``exception`` is a write refused by a server in recovery (a demoted leader): SQLSTATE 25006."""
    return isinstance(exception, InternalError) and isinstance(exception.__cause__, ReadOnlySqlTransaction)
