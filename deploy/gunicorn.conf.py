"""gunicorn's settings for every app server: the one-box stack (deploy/stack) and the web role
(deploy/ansible/roles/web) both start gunicorn with deploy/templates/Procfile's web command, which names this file.

What differs between the two (the address, the number of workers, the pid and log files) is given on the
command line, which takes precedence over this file.
"""
import os

# Sync workers: one request per process, as the survey's views are written for (short requests, no streaming).
worker_class = "sync"
# A request still running after this many seconds is killed and answered 502 by nginx: every wait inside a
# request (pgbouncer's query_wait_timeout, the database's statement timeout, Redis' socket timeouts) is shorter,
# so a slow dependency is answered "503, retry" by the app itself first.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 10
# A worker is replaced after this many requests (with jitter, so they do not all restart at once): a slow
# leak never grows past it.
max_requests = 10000
max_requests_jitter = 1000
# Only the nginx beside gunicorn may say which scheme the client used.
forwarded_allow_ips = "127.0.0.1"
control_socket_disable = True
capture_output = True
