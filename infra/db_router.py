"""Replica routing, built on django-balancer 0.5; its gaps are mended here and nowhere else.

Where a read goes, what pins a client to the master, and each gap of balancer this module handles:
docs/architecture.md, "Replica routing".
"""
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache, wraps
from typing import Any, Concatenate, ParamSpec, TypeVar

from balancer import pinning
from balancer.middleware import PinningCookieMiddleware
from balancer.routers import PinningWMSRouter
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model
from django.http import HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin

log = logging.getLogger(__name__)

# Seconds of replay lag; 0 when the replica has replayed all it has received.
LAG_SQL = """
    SELECT CASE
        WHEN NOT pg_is_in_recovery() THEN 0
        WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
        ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0)
    END
"""

_forced_read = threading.local()

# What Django hands an execute wrapper: the next execute(sql, params, many, context) in the chain.
Execute = Callable[[str, Any, bool, dict[str, Any]], Any]
ExecuteWrapper = Callable[[Execute, str, Any, bool, dict[str, Any]], Any]

_P = ParamSpec("_P")
_Request = TypeVar("_Request", bound=HttpRequest)


def master_alias() -> str:
    return getattr(settings, "MASTER_DATABASE", "default")


def replica_aliases() -> list[str]:
    """Return the configured replica aliases (none on the embedded default)."""
    return [alias for alias in getattr(settings, "DATABASE_POOL", {}) if alias != master_alias()]


class ReplicaHealth:
    """Whether each replica may take reads: checked at most every ``REPLICA_CHECK_SECONDS`` per process."""

    def __init__(self) -> None:
        self._state: dict[str, tuple[float, bool]] = {}  # alias -> (checked_at, healthy)

    def is_healthy(self, alias: str) -> bool:
        now = time.monotonic()
        checked_at, healthy = self._state.get(alias, (None, False))
        if checked_at is not None and now - checked_at < settings.REPLICA_CHECK_SECONDS:
            return healthy
        healthy = self._check(alias)
        self._state[alias] = (now, healthy)
        return healthy

    def mark_down(self, alias: str) -> None:
        self._state[alias] = (time.monotonic(), False)

    def forget(self) -> None:
        self._state.clear()

    @staticmethod
    def _check(alias: str) -> bool:
        lag = _replica_value(alias, LAG_SQL)
        if lag is None:
            log.warning("replica %s is unreachable, reading from the master", alias)
            return False
        lag = float(lag)
        if lag > settings.REPLICA_MAX_LAG_SECONDS:
            log.warning("replica %s is %.1f s behind, reading from the master", alias, lag)
            return False
        return True


replica_health = ReplicaHealth()


def _replica_value(alias: str, sql: str, params: Sequence[str] = ()) -> Any:  # noqa: ANN401 - what the SQL selects
    """Return the one value ``sql`` selects on replica ``alias``, or None if the replica cannot answer.

    A connection the replica dropped is closed, so the next use reconnects.
    """
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()[0]
    except (DatabaseError, InterfaceError):
        _drop_connection(alias)
        return None


def _drop_connection(alias: str) -> None:
    """Close ``alias``'s connection after a failure; if even closing fails, forget it so the next use reconnects."""
    connection = connections[alias]
    try:
        connection.close()
    except (DatabaseError, InterfaceError):
        connection.connection = None


class ReplicaRouter(PinningWMSRouter):
    # Set by balancer's routers (which have no type information): the master's alias and DATABASE_POOL's.
    master: str
    pool: list[str]

    def __init__(self) -> None:
        super().__init__()
        self.pool = list(self.pool)

    def db_for_read(self, model: type[Model], **hints: Any) -> str:
        if connections[self.master].in_atomic_block:
            return self.master
        if getattr(_forced_read, "active", False) and model._meta.label in settings.FORCED_READ_MODELS:
            return self._healthy_replica()
        if pinning.thread_is_pinned():
            return self.master
        return self._healthy_replica()

    def db_for_write(self, model: type[Model], **hints: Any) -> str:
        return self.master

    def _healthy_replica(self) -> str:
        alias: str = self.get_random_db()
        if alias != self.master and not replica_health.is_healthy(alias):
            return self.master
        return alias


def replica_alias() -> str:
    """Return a replica that may take reads now, or the master: for exports and other long reads."""
    if connections[master_alias()].in_atomic_block:
        return master_alias()  # as ReplicaRouter: a transaction reads its own writes
    for alias in replica_aliases():
        if replica_health.is_healthy(alias):
            return alias
    return master_alias()


@contextmanager
def read_from_master() -> Iterator[None]:
    """Send every read in the block to the master (a command that reads back what it wrote)."""
    was_pinned = pinning.thread_is_pinned()
    pinning.pin_thread()
    try:
        yield
    finally:
        if not was_pinned:
            pinning.unpin_thread()


# A statement that starts with WITH writes when one of its parts does (the page save: respondents/services.py).
_DATA_MODIFYING = re.compile(r"\b(INSERT|UPDATE|DELETE)\b", re.IGNORECASE)


def _note_writes(execute: Execute, sql: str, params: object, many: bool, context: dict[str, Any]) -> object:
    head = sql.lstrip()[:6].upper()
    if head in ("INSERT", "UPDATE", "DELETE") or (head.startswith("WITH") and _DATA_MODIFYING.search(sql)):
        pinning.set_db_write()
    return execute(sql, params, many, context)


@cache
def _note_replica_failures(alias: str) -> ExecuteWrapper:
    """Return the execute wrapper that marks replica ``alias`` down when a query on it fails (one per alias)."""

    def wrapper(execute: Execute, sql: str, params: object, many: bool, context: dict[str, Any]) -> object:
        try:
            return execute(sql, params, many, context)
        except (OperationalError, InterfaceError):
            replica_health.mark_down(alias)
            _forced_read.replica_failed = True
            raise

    return wrapper


class MasterPinningMiddleware(MiddlewareMixin, PinningCookieMiddleware):
    """balancer's cookie pinning, as new-style middleware, pinning after any write, with a safe cookie."""

    def process_request(self, request: HttpRequest) -> None:
        # A thread serves many requests: start each one unpinned and unwritten,
        # and leave the thread as it was found (a test's own pin survives).
        # Attributes of the request's own for process_response (HttpRequest declares none such).
        request._thread_was_pinned = pinning.thread_is_pinned()  # type: ignore[attr-defined]
        pinning.unpin_thread()
        pinning.clear_db_write()
        super().process_request(request)
        wrappers: list[tuple[BaseDatabaseWrapper, ExecuteWrapper]] = [(connections[master_alias()], _note_writes)]
        wrappers += [(connections[alias], _note_replica_failures(alias)) for alias in replica_aliases()]
        for connection, wrapper in wrappers:
            connection.execute_wrappers.append(wrapper)
        request._pinning_wrappers = wrappers  # type: ignore[attr-defined]

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        for connection, wrapper in getattr(request, "_pinning_wrappers", []):
            if wrapper in connection.execute_wrappers:
                connection.execute_wrappers.remove(wrapper)
        if pinning.db_was_written():
            response.set_cookie(
                settings.MASTER_PINNING_KEY, "1", max_age=settings.MASTER_PINNING_SECONDS,
                secure=settings.SESSION_COOKIE_SECURE, httponly=True, samesite="Lax",
            )
        pinning.clear_db_write()
        pinning.unpin_thread()
        if getattr(request, "_thread_was_pinned", False):
            pinning.pin_thread()
        return response


def uses_forced_read_router(
        view: Callable[Concatenate[_Request, _P], HttpResponse]) -> Callable[Concatenate[_Request, _P], HttpResponse]:
    """Read the survey-definition models from a replica inside ``view``, even when the client is pinned.

    Should the replica fail in the middle of the view, it is marked down and
    the view runs once more, reading from the master. The survey-taking views
    read from replicas before they write, so no write is repeated.
    """

    @wraps(view)
    def wrapper(request: _Request, *args: _P.args, **kwargs: _P.kwargs) -> HttpResponse:
        _forced_read.active = True
        _forced_read.replica_failed = False
        try:
            try:
                return view(request, *args, **kwargs)
            except (OperationalError, InterfaceError):
                if not _forced_read.replica_failed:
                    raise
                log.warning("a replica failed during %s; answering from the master", request.path)
                for alias in replica_aliases():
                    _drop_connection(alias)
                return view(request, *args, **kwargs)
        finally:
            _forced_read.active = False

    return wrapper


def master_wal_position() -> str:
    """Return the master's current WAL position (an LSN, as text)."""
    with connections[master_alias()].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        return cursor.fetchone()[0]


# Every standby the master streams to has replayed up to a position (needs pg_monitor: a standby whose position the
# role may not read counts as behind). On several machines the replica alias is HAProxy in front of several
# replicas, and a query through it reaches one of them: only the master sees them all.
STANDBYS_BEHIND_SQL = """
    SELECT count(*) FILTER (WHERE replay_lsn IS NULL OR replay_lsn < %s::pg_lsn) FROM pg_stat_replication
"""


def replicas_caught_up(position: str, *, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for every replica to replay WAL up to ``position``; return whether they did:
    each replica alias answers so, and so does the master for every standby streaming from it."""
    deadline = time.monotonic() + timeout
    pending = list(replica_aliases())
    while pending:
        if _replica_value(pending[0], "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [position]):
            pending.pop(0)
        elif time.monotonic() >= deadline:
            return False
        else:
            time.sleep(0.02)
    while _standbys_behind(position):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def _standbys_behind(position: str) -> int:
    if connections[master_alias()].vendor != "postgresql":  # the embedded default: no standby at all
        return 0
    with connections[master_alias()].cursor() as cursor:
        cursor.execute(STANDBYS_BEHIND_SQL, [position])
        return cursor.fetchone()[0]
