from django.conf import settings


def broker_status() -> str:
    """'eager' without a broker, else 'ok' or 'unavailable' after one quick connection try."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "eager"
    from .celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=1)
        return "ok"
    except Exception:  # kombu raises many transport-specific errors
        return "unavailable"
