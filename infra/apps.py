from django.apps import AppConfig


class InfraConfig(AppConfig):
    """What every app stands on and none of them owns: the database router, sessions and counters in Redis,
    storages, the CSP header, the request guard, faults answered 503, the error pages, background jobs' progress and
    the Jinja2 environment (docs/directory-structure.md)."""

    name = "infra"
    verbose_name = "Infrastructure"
