"""The production settings and the Celery app on the live stack: `check --deploy` is clean with TLS on, and the
worker answers over the Redis broker. Runs only against the live stack (`make test-stack`)."""

import pytest
from django.core.management import call_command
from django.test.utils import override_settings

pytestmark = [pytest.mark.stack, pytest.mark.django_db(transaction=True, databases="__all__")]



def test_check_deploy_reports_nothing_with_tls_settings_on(monkeypatch):
    # Set by conftest.py for Playwright in the test process only; never in deployment.
    monkeypatch.delenv("DJANGO_ALLOW_ASYNC_UNSAFE")
    secure = {"SESSION_COOKIE_SECURE": True, "CSRF_COOKIE_SECURE": True, "SECURE_SSL_REDIRECT": True,
              "SECURE_HSTS_SECONDS": 60 * 60 * 24 * 30}
    with override_settings(**secure):
        call_command("check", "--deploy", "--fail-level", "WARNING")


def test_the_celery_worker_answers_over_the_redis_broker():
    from config.celery import app

    with override_settings(CELERY_TASK_ALWAYS_EAGER=False):
        replies = app.control.ping(timeout=2)
    assert replies and all(reply for answer in replies for reply in answer.values())
    assert app.conf.broker_url.startswith("redis://")
