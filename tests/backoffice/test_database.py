import os

from django.db import connection


def test_suite_runs_on_the_database_of_database_url(db):
    """CI sets DATABASE_URL to PostgreSQL; a bare machine runs on SQLite."""
    url = os.environ.get("DATABASE_URL", "sqlite://")
    expected = "postgresql" if url.startswith(("postgres://", "postgresql://")) else "sqlite"
    assert connection.vendor == expected
    if expected == "postgresql":
        import psycopg

        assert connection.connection.__class__.__module__.startswith("psycopg")
        assert int(psycopg.__version__.split(".")[0]) == 3


def test_page_queries_run_without_parallel_workers(db):
    """On PostgreSQL a page's query never waits for parallel workers to start (settings)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SHOW max_parallel_workers_per_gather")
            assert cursor.fetchone()[0] == "0"
    else:
        assert "options" not in connection.settings_dict["OPTIONS"]
