"""The test suite against the running one-box stack (`make test-stack`).

Production settings, with the environment `deploy/stack env` prints:
PostgreSQL through pgbouncer, the streaming replica (a test mirror: the test
database on the replica server is the one replication fills), memcached, and
Redis sessions. Only what tests need differs.
"""
from config.settings.production import *  # noqa: F401,F403
from config.settings.production import BENCH_APPS, BENCH_TOOLS, CACHES, INSTALLED_APPS

# The bench's tools (bench/) are under test too, whatever the stack's environment says.
if not BENCH_TOOLS:
    INSTALLED_APPS = [*INSTALLED_APPS, *BENCH_APPS]

# Tests that need the live stack run only under these settings (conftest.py).
STACK_TESTS = True

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tasks run in the test process, against the test database.
CELERY_TASK_ALWAYS_EAGER = True
# The stack's beat refreshes the app's own database; the test database's monitoring and results are refreshed on
# request.
MONITORING_REFRESH_ON_REQUEST = True
RESULTS_REFRESH_ON_REQUEST = True
# Keep the tests' sessions and cache keys apart from the running app's.
CACHES["sessions"]["LOCATION"] = CACHES["sessions"]["LOCATION"].rsplit("/", 1)[0] + "/2"
CACHES["ratelimit"]["LOCATION"] = CACHES["ratelimit"]["LOCATION"].rsplit("/", 1)[0] + "/4"
CACHES["default"]["KEY_PREFIX"] = "tests"
# The floor's own tests (bench/floor/tests) reach its views in this process; the stack's gunicorn serves them
# only while make bench runs (deploy/stack.conf).
BENCH_FLOOR_VIEWS = True
