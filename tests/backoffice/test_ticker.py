import time

from backoffice.ticker import Ticker, start_if_wanted


def test_ticker_runs_each_task_on_its_own_interval(monkeypatch):
    from backoffice.celery import app

    runs = []

    @app.task(name="tests.tick_probe")
    def probe():
        runs.append(time.monotonic())

    app.loader.import_default_modules()  # slow the first time; the ticker does it once too
    ticker = Ticker({"probe": {"task": "tests.tick_probe", "schedule": 0.2}}, tick=0.05)
    ticker.start()
    time.sleep(1.05)
    ticker.stop()
    ticker.join(timeout=2)
    assert not ticker.is_alive()
    # Ran at once, then about every 0.2 s: about 5 times, never once per tick.
    assert 3 <= len(runs) <= 7, runs


def test_ticker_starts_only_in_the_serving_runserver_process(settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.EAGER_BEAT = True
    monkeypatch.setattr("sys.argv", ["manage.py", "migrate"])
    assert start_if_wanted() is None
    monkeypatch.setattr("sys.argv", ["manage.py", "runserver"])
    monkeypatch.delenv("RUN_MAIN", raising=False)
    assert start_if_wanted() is None  # the autoreloader's parent
    settings.CELERY_TASK_ALWAYS_EAGER = False
    monkeypatch.setenv("RUN_MAIN", "true")
    assert start_if_wanted() is None  # a broker: beat does this


def test_ticker_starts_under_runserver_noreload_too(settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.EAGER_BEAT = True
    monkeypatch.delenv("RUN_MAIN", raising=False)
    monkeypatch.setattr("sys.argv", ["manage.py", "runserver", "--noreload"])
    monkeypatch.setattr("backoffice.ticker.Ticker.start", lambda self: None)
    assert start_if_wanted() is not None
