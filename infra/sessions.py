"""Sessions in Redis that survive Redis being away, through a cheaper Redis cache client; and a Redis cache for
counters that may be lost (the login limits'), both reaching one Redis by URL or whichever primary the Sentinels name.

Why, and what a lost primary costs: docs/architecture.md, "Sessions" (and "Through Redis Sentinel").
"""
import logging
from collections.abc import Iterable
from typing import Any

from django.contrib.sessions.backends.cache import SessionStore as CacheSessionStore
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from redis import Redis
from redis.backoff import NoBackoff
from redis.connection import ConnectionPool, parse_url
from redis.exceptions import RedisError
from redis.retry import Retry
from redis.sentinel import Sentinel, SentinelConnectionPool

log = logging.getLogger(__name__)

UNREACHABLE = (RedisError, OSError)


class SessionStore(CacheSessionStore):
    unavailable = False
    # Django's store sets it in __init__; django-stubs does not declare it.
    _cache: BaseCache

    def _unreachable(self, error: BaseException) -> None:
        if not self.unavailable:
            log.warning("session store unreachable: %s", error)
        self.unavailable = True

    def load(self) -> dict[str, Any]:
        # Django's own load() takes any exception for "no such session" and
        # drops the key, which logs the respondent out: tell the two apart.
        try:
            session_data = self._cache.get(self.cache_key)
        except UNREACHABLE as error:
            # Keep the key: the session is away, not gone, and the cookie must not be dropped.
            self._unreachable(error)
            return {}
        except Exception:
            session_data = None  # as Django: a key the cache refuses is no session
        if session_data is not None:
            return session_data
        self._session_key = None
        return {}

    def exists(self, session_key: str) -> bool:
        try:
            return super().exists(session_key)
        except UNREACHABLE as error:
            self._unreachable(error)
            return False

    def save(self, must_create: bool = False) -> None:
        try:
            super().save(must_create=must_create)
        except UNREACHABLE as error:
            self._unreachable(error)

    def delete(self, session_key: str | None = None) -> None:
        try:
            super().delete(session_key)
        except UNREACHABLE as error:
            self._unreachable(error)


class _ReusedClient(RedisCacheClient):
    """Keep one redis.Redis per connection pool; find the master through Sentinel when told to.

    Django's client builds a new redis.Redis for every cache operation, and
    each one rebuilds its ~170 response callbacks: about 0.15 ms of CPU per
    session read or write, measured in a profile of the survey views. A
    redis.Redis is safe to share; its pool hands out the connections.
    """

    # Django's client sets these in __init__; django-stubs does not declare them.
    _servers: list[str]
    _pools: dict[int, ConnectionPool]
    _pool_options: dict[str, Any]
    _client: type[Redis]

    def __init__(self, servers: list[str], *, sentinels: list[tuple[str, int]] | None = None,
                 sentinel_master: str | None = None, **options: Any) -> None:
        super().__init__(servers, **options)
        self._sentinels = sentinels
        self._sentinel_master = sentinel_master
        self._clients: dict[int, Redis] = {}

    def _get_connection_pool(self, write: bool) -> ConnectionPool:
        if not self._sentinels:
            return super()._get_connection_pool(write)  # type: ignore[misc]  # Django's, missing from django-stubs
        # Reads too go to the master: a replica may not have the session written a moment ago.
        if 0 not in self._pools:
            options = {**parse_url(self._servers[0]), **self._pool_options}
            # The master's address is the Sentinels' answer, asked on every new connection.
            options.pop("host", None)
            options.pop("port", None)
            # No backoff, and few tries: redis.Redis retries a connection three times with up to 10 s of backoff,
            # and a request that asked a dead host's Sentinel that way outlived gunicorn's 30 s timeout (500) in
            # the lab. A Sentinel is asked once (1 s at most; the next one is asked then). A command to the master
            # is tried again once, at once, on a new connection: a killed host sends no reset, so an idle
            # connection of this process to the old primary looks alive until a command on it times out, and the
            # new connection asks the Sentinels where the master is now (without it, each gunicorn worker
            # answered one more 503 after the promotion: 11-20 s of "try again" in the lab, against ~5 s).
            sentinel = Sentinel(self._sentinels, sentinel_kwargs={
                **{k: v for k, v in options.items() if k.startswith("socket_")}, "retry": Retry(NoBackoff(), 0)})
            self._pools[0] = SentinelConnectionPool(self._sentinel_master, sentinel, **options,
                                                    retry=Retry(NoBackoff(), 1))
        return self._pools[0]

    def get_client(self, key: str | bytes | memoryview | None = None, *, write: bool = False) -> Redis:
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    """Django's Redis cache backend, with a client that is reused and may find the master through Sentinel
    (see _ReusedClient)."""

    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _ReusedClient


class CountersRedisCache(RedisCache):
    """The reused-client Redis cache for counters that may be lost: the login limits' (staff/sign_in_limits.py,
    respondents/login_limits.py).

    An unreachable Redis reads as "nothing counted" instead of raising, so
    django-ratelimit and django-axes let logins through rather than answer 500
    (the session store, in the same Redis, then says to try again shortly).
    """

    def _tolerant(self, name: str, fallback: object, *args: object,
                  **kwargs: object) -> Any:  # noqa: ANN401 - what the method ``name`` returns
        try:
            return getattr(super(), name)(*args, **kwargs)
        except UNREACHABLE as error:
            log.warning("login-limit counters unreachable (%s): not counted", error)
            return fallback

    def get(self, key: object, default: object = None,
            version: int | None = None) -> Any:  # noqa: ANN401 - whatever was stored
        return self._tolerant("get", default, key, default=default, version=version)

    def get_many(self, keys: Iterable[object], version: int | None = None) -> dict[Any, Any]:
        return self._tolerant("get_many", {}, keys, version=version)

    def set(self, key: object, value: object, timeout: float | None = None, version: int | None = None) -> None:
        return self._tolerant("set", None, key, value, timeout=timeout, version=version)

    def add(self, key: object, value: object, timeout: float | None = None, version: int | None = None) -> bool:
        # As if this were the first: a counter starts again at its first value.
        return self._tolerant("add", True, key, value, timeout=timeout, version=version)

    def incr(self, key: object, delta: int = 1, version: int | None = None) -> int:
        return self._tolerant("incr", delta, key, delta=delta, version=version)

    def touch(self, key: object, timeout: float | None = None, version: int | None = None) -> bool:
        return self._tolerant("touch", False, key, timeout=timeout, version=version)

    def delete(self, key: object, version: int | None = None) -> bool:
        return self._tolerant("delete", False, key, version=version)

    def clear(self) -> None:
        return self._tolerant("clear", None)
