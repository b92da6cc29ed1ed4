import logging.config
import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backoffice.settings")

app = Celery("backoffice")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.setup_logging.connect
def _django_logging(**kwargs):
    """Workers and beat log like the web processes (LOG_FORMAT, the request id), not in
    Celery's own format."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


def _connect_signals():
    from . import observability
    from .health import beat_published

    signals.before_task_publish.connect(observability.carry_request_id, weak=False)
    signals.after_task_publish.connect(beat_published, weak=False)
    signals.task_prerun.connect(observability.task_started, weak=False)
    signals.task_postrun.connect(observability.task_finished, weak=False)
    signals.task_failure.connect(observability.task_failed, weak=False)
    signals.worker_ready.connect(observability.serve_worker_metrics, weak=False)


_connect_signals()
