from celery import shared_task

from surveys.caching import DefinitionRef, invalidate_when_replicated


@shared_task(acks_late=True)
def definitions_invalidate_when_replicated(position: str, refs: list[DefinitionRef]) -> bool:
    """Invalidate changed definitions once every replica has replayed WAL up to ``position``."""
    return invalidate_when_replicated(position=position, refs=refs, timeout=300)
