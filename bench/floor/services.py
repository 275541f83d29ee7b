from django.db import transaction

from bench.floor.models import FloorRow


def floor_rows_save(*, session_key: str, values: list[str]) -> int:
    """Write one row per value with one ``bulk_create`` in a transaction, as a page save writes its answers."""
    with transaction.atomic(durable=True):
        FloorRow.objects.bulk_create(
            [FloorRow(session_key=session_key, position=position, value=value) for position, value in enumerate(values)]
        )
    return len(values)


def floor_rows_recent(*, session_key: str, count: int = 5) -> list[FloorRow]:
    """Return the session's latest rows: one SELECT."""
    return list(FloorRow.objects.filter(session_key=session_key).order_by("-id")[:count])
