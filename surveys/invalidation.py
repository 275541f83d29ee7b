"""What a change to a survey definition sets off: its cached queries dropped now, when it commits, and once
every replica has replayed it (a Celery task when that takes long). See ``surveys/caching.py`` for why.

It is apart from ``surveys/caching.py`` because it queues ``surveys.tasks``' task, and that task calls
``surveys.caching``: here the imports run one way.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction

from infra.db_router import master_wal_position, replica_aliases, replicas_caught_up
from surveys.caching import definition_ref, forget_definitions, new_definitions_version
from surveys.tasks import definitions_invalidate_when_replicated

if TYPE_CHECKING:
    from surveys.caching import DefinitionRow

log = logging.getLogger(__name__)


def definitions_changed(objects: Iterable[DefinitionRow]) -> None:
    """Invalidate ``objects``' cached queries now, when the change commits, and once every replica has it."""
    objects = list(objects)
    new_definitions_version()

    def after_commit() -> None:
        forget_definitions(objects)
        if not replica_aliases():
            return
        position = master_wal_position()
        if replicas_caught_up(position, timeout=settings.DEFINITION_REPLICA_WAIT_SECONDS):
            forget_definitions(objects)
            return
        try:
            definitions_invalidate_when_replicated.delay(position, [definition_ref(o) for o in objects])
        except Exception:  # the broker is down: the change is already invalidated once
            log.exception("could not queue the invalidation of changed definitions after replication")

    transaction.on_commit(after_commit)


def definition_saved_or_deleted(sender: type[DefinitionRow], instance: DefinitionRow, **kwargs: Any) -> None:
    """post_save/post_delete receiver of the definition models (module-level: signals hold receivers weakly)."""
    definitions_changed([instance])
