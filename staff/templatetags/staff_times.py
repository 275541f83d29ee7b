"""How the staff screens show a time: in the site's zone (TIME_ZONE), with the zone named ("2026-11-25 14:02 CST"),
so that a coordinator in another zone, or reading a printout, knows which clock it is."""
from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.html import format_html

register = template.Library()

FORMATS = {"minutes": "Y-m-d H:i T", "seconds": "Y-m-d H:i:s T", "hours": "Y-m-d H:00 T"}


@register.filter
def when(value: datetime | None, precision: str = "minutes") -> str:
    """Return ``value`` (a datetime) as a ``<time>`` of the site's local date and time with the zone's abbreviation,
    to the minute (``precision`` "seconds" or "hours" for other steps); "—" when there is none."""
    if not value:
        return "—"
    if timezone.is_aware(value):
        value = timezone.localtime(value)
    return format_html('<time datetime="{}">{}</time>', value.isoformat(), date_format(value, FORMATS[precision]))
