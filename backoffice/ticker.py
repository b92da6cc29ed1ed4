"""Periodic work without a broker.

With a broker, Celery beat sends the tasks of CELERY_BEAT_SCHEDULE to the workers. On a
machine without one (eager Celery, `make run`), the development server runs the same
schedule itself in a daemon thread, so that syncs, expiries and webhook retries happen on
time without a request arriving. It dies with the server.
"""

import logging
import os
import sys
import threading
import time

from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger(__name__)


class Ticker(threading.Thread):
    def __init__(self, schedule: dict, tick: float = 1.0):
        super().__init__(name="eager-beat", daemon=True)
        self.schedule = schedule
        self.tick = tick
        self.next_run = dict.fromkeys(schedule, 0.0)
        self.stopped = threading.Event()

    def stop(self):
        self.stopped.set()

    def run(self):
        from .celery import app

        app.loader.import_default_modules()
        while not self.stopped.is_set():
            now = time.monotonic()
            for name, entry in self.schedule.items():
                if now < self.next_run[name]:
                    continue
                self.next_run[name] = now + float(entry["schedule"])
                try:
                    app.tasks[entry["task"]].apply()
                except Exception:  # keep ticking: one failing task must not stop the others
                    log.exception("Periodic task %s failed", entry["task"])
                finally:
                    close_old_connections()
            self.stopped.wait(self.tick)


def start_if_wanted() -> Ticker | None:
    """Start the ticker in the serving process of `runserver` when Celery is eager: the
    reloader's child, or the one process of `runserver --noreload`."""
    serving = "runserver" in sys.argv and (os.environ.get("RUN_MAIN") == "true" or "--noreload" in sys.argv)
    if not (settings.CELERY_TASK_ALWAYS_EAGER and settings.EAGER_BEAT and serving):
        return None
    ticker = Ticker(settings.CELERY_BEAT_SCHEDULE)
    ticker.start()
    return ticker
