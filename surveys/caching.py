"""The one place where django-cache-machine's gaps are handled, and the per-process memo of assembled definitions.

Read next: ``docs/architecture.md``, "Caching rules"; what invalidates, and when: ``surveys/invalidation.py``.
"""
from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast

from caching.base import CachingManager, CachingMixin, CachingQuerySet
from django.apps import apps
from django.core.cache import cache

from infra.db_router import replicas_caught_up

if TYPE_CHECKING:  # the models import this module
    from surveys.models import Choice, Page, Question, Survey

    # A row of a survey definition: what cache-machine caches here, and what is invalidated.
    DefinitionRow: TypeAlias = Survey | Page | Question | Choice

# A definition ref (``definition_ref``): [model label, pk, {FK attname: id}], plain data for a Celery task.
DefinitionRef = list[Any]

_T = TypeVar("_T")

__all__ = ["CachingMixin", "DefinitionManager", "forget_definitions", "invalidate_definitions"]


class DefinitionQuerySet(CachingQuerySet):
    def iterator(self, chunk_size: int | None = None) -> Iterator[DefinitionRow]:
        # cache-machine's iterator() has no chunk_size; results are cached whole anyway.
        return super().iterator()


class DefinitionManager(CachingManager):
    def get_queryset(self) -> DefinitionQuerySet:
        return DefinitionQuerySet(self.model, using=self._db)


def invalidate_definitions(objects: Iterable[DefinitionRow]) -> None:
    """Drop every cached query that holds one of ``objects``, or any row of their models.

    Each model's whole-model flush list is cleared too, so cached lists that
    new rows belong in are dropped as well. This is one step of
    ``surveys.invalidation.definitions_changed``, which is what code that changes definitions calls.
    """
    by_model: dict[type[DefinitionRow], list[DefinitionRow]] = {}
    for obj in objects:
        by_model.setdefault(type(obj), []).append(obj)
    for model, instances in by_model.items():
        model.cached.invalidate(*instances, is_new_instance=True, model_cls=model)


class DefinitionMemo:
    """Assembled definitions kept in this process while the shared definitions version stays the same."""

    VERSION_KEY = "definitions-version"
    RECHECK_SECONDS = 0.5

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version: str | None = None
        self._checked_at = float("-inf")
        # Each key's value is of its own builder's type.
        self._values: dict[Hashable, Any] = {}

    def get(self, key: Hashable, build: Callable[[], _T]) -> _T:
        """Return the memo's value for ``key``, building it with ``build()`` when missing or outdated."""
        if self._current_version() is None:
            return build()  # no shared cache to agree on a version with: keep nothing
        try:
            return cast(_T, self._values[key])
        except KeyError:
            value = self._values[key] = build()
            return value

    def expire(self) -> None:
        """Read the shared version again on the next use."""
        self._checked_at = float("-inf")

    def _current_version(self) -> str | None:
        now = time.monotonic()
        if now - self._checked_at < self.RECHECK_SECONDS:
            return self._version
        version = cache.get(self.VERSION_KEY)
        if version is None:  # first use, or evicted: any new version will do
            cache.add(self.VERSION_KEY, uuid.uuid4().hex, timeout=None)
            version = cache.get(self.VERSION_KEY)
        with self._lock:
            if version != self._version:
                self._values = {}
                self._version = version
            self._checked_at = now
        return version


definition_memo = DefinitionMemo()


def new_definitions_version() -> None:
    """Outdate every process's memo of assembled definitions."""
    cache.set(DefinitionMemo.VERSION_KEY, uuid.uuid4().hex, timeout=None)
    definition_memo.expire()


def forget_definitions(objects: Iterable[DefinitionRow]) -> None:
    """Drop ``objects`` from cache-machine, then from every process's memo."""
    invalidate_definitions(objects)
    new_definitions_version()


def definition_ref(obj: DefinitionRow) -> DefinitionRef:
    """Return what invalidation needs of ``obj`` (model, pk, FK ids) as plain data, for a Celery task."""
    fks = {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields if f.is_relation}
    return [obj._meta.label, obj.pk, fks]


def objects_from_refs(refs: Iterable[DefinitionRef]) -> list[DefinitionRow]:
    """Return unsaved instances carrying the pk and FK ids of ``refs``: enough to invalidate, even if deleted."""
    return [apps.get_model(label)(pk=pk, **fks) for label, pk, fks in refs]


def invalidate_when_replicated(*, position: str, refs: Iterable[DefinitionRef], timeout: float) -> bool:
    """Wait for every replica to replay ``position``, then invalidate ``refs``; return whether they did."""
    caught_up = replicas_caught_up(position, timeout=timeout)
    forget_definitions(objects_from_refs(refs))
    return caught_up


def clear_definition_cache() -> None:
    """Empty the whole definition cache (tests, and after restoring a database)."""
    cache.clear()
    definition_memo.expire()
