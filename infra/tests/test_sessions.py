import pytest
from redis import exceptions
from redis.sentinel import MasterNotFoundError, SentinelConnectionPool

from infra.sessions import UNREACHABLE, RedisCache


def test_the_redis_cache_reuses_one_client_per_connection_pool():
    cache = RedisCache("redis://127.0.0.1:1/0", {})
    first = cache._cache.get_client(write=True)
    assert cache._cache.get_client(write=False) is first
    assert cache._cache.get_client("some-key", write=True) is first


@pytest.mark.parametrize("error", [
    exceptions.ConnectionError, exceptions.TimeoutError, MasterNotFoundError, exceptions.ReadOnlyError,
])
def test_what_a_redis_failover_raises_is_what_the_session_store_tolerates(error):
    # redis-py reports READONLY from a demoted master as a ConnectionError; the store tolerates either.
    assert issubclass(error, UNREACHABLE)


def test_with_sentinels_the_cache_reads_and_writes_through_one_sentinel_pool_on_the_located_db():
    cache = RedisCache("redis:///3", {"OPTIONS": {
        "socket_timeout": 1, "sentinels": [("127.0.0.1", 1)], "sentinel_master": "survey", "password": "secret",
    }})
    pool = cache._cache._get_connection_pool(write=True)
    assert isinstance(pool, SentinelConnectionPool)
    assert cache._cache._get_connection_pool(write=False) is pool
    assert pool.service_name == "survey"
    assert {key: pool.connection_kwargs[key] for key in ("db", "password", "socket_timeout")} == {
        "db": 3, "password": "secret", "socket_timeout": 1,
    }
    # The Sentinels are asked with the same timeouts and no password, once; the master is tried again once, on a
    # new connection (redis-py's default: three tries with backoff, past gunicorn's timeout when a host is dead).
    sentinel_kwargs = pool.sentinel_manager.sentinel_kwargs
    assert {key: value for key, value in sentinel_kwargs.items() if key != "retry"} == {"socket_timeout": 1}
    assert sentinel_kwargs["retry"].get_retries() == 0 and pool.connection_kwargs["retry"].get_retries() == 1
