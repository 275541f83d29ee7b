from config.sessions import RedisCache


def test_the_redis_cache_reuses_one_client_per_connection_pool():
    cache = RedisCache("redis://127.0.0.1:1/0", {})
    first = cache._cache.get_client(write=True)
    assert cache._cache.get_client(write=False) is first
    assert cache._cache.get_client("some-key", write=True) is first
