"""The one place where django-cache-machine's gaps are handled.

django-cache-machine (1.2, unmaintained) caches query results per model and
invalidates them from post_save/post_delete signals. Known gaps, and what this
module does about them:

* ``QuerySet.iterator(chunk_size=...)`` raises TypeError, because its
  ``iterator()`` takes no arguments; Django's admin and ``prefetch_related``
  pass ``chunk_size``. ``DefinitionQuerySet.iterator`` accepts and ignores it.
* ``QuerySet.update()`` and ``bulk_create()`` send no signals, so they never
  invalidate. Definition models are written through model ``save()`` only;
  code that must use them calls ``invalidate_definitions()`` afterwards.
* A new row invalidates only through its FK parents; settings turn on
  ``CACHE_INVALIDATE_ON_CREATE = "whole-model"`` so cached lists see it.
* ``count()`` results cannot be invalidated; ``CACHE_COUNT_TIMEOUT = -1``
  keeps them out of the cache.

Caching is explicit: models keep Django's plain ``objects`` manager as their
default and expose the caching one as ``cached``, so a stale read can only come
from code that asked for the cache.
"""
from caching.base import CachingManager, CachingMixin, CachingQuerySet
from django.core.cache import cache

__all__ = ["CachingMixin", "DefinitionManager", "invalidate_definitions"]


class DefinitionQuerySet(CachingQuerySet):
    def iterator(self, chunk_size=None):
        # cache-machine's iterator() has no chunk_size; results are cached whole anyway.
        return super().iterator()


class DefinitionManager(CachingManager):
    def get_queryset(self):
        return DefinitionQuerySet(self.model, using=self._db)


def invalidate_definitions(objects):
    """Drop every cached query that holds one of ``objects``, or any row of their models.

    Call after writing definition rows with ``update()`` or ``bulk_create()``,
    which send no signals. Each model's whole-model flush list is cleared too,
    so cached lists that the new rows belong in are dropped as well.
    """
    by_model = {}
    for obj in objects:
        by_model.setdefault(type(obj), []).append(obj)
    for model, instances in by_model.items():
        model.cached.invalidate(*instances, is_new_instance=True, model_cls=model)


def clear_definition_cache():
    """Empty the whole definition cache (tests, and after restoring a database)."""
    cache.clear()
