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
