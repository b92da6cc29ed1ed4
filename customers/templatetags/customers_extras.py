from django import template

register = template.Library()


@register.filter
def duration(value) -> str:
    """A timedelta as "2 d 3 h", "3 h 20 min" or "12 min"."""
    if value is None:
        return ""
    seconds = int(abs(value.total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min"
