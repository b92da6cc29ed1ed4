"""The restore drill of docs/operations.md, small: bench/restore_drill.py backs the back-office's
database up with pg_dump, drops it, restores it with pg_restore, syncs, and finds every
transaction of the backup known and at the provider's status; the API alone knows none."""

import json
import shutil
import subprocess

import pytest
from django.conf import settings

from .conftest import PYTHON, ROOT, answers

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (
            settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
            and shutil.which("pg_dump")
            and shutil.which("pg_restore")
            and answers(5432)
        ),
        reason="needs PostgreSQL and its client tools (pg_dump, pg_restore), as CI has",
    ),
]


def test_backup_drop_restore_sync_keeps_every_transaction():
    ran = subprocess.run(
        [PYTHON, "restore_drill.py", "--customers", "2", "--per-customer", "3", "--after-backup", "2"],
        cwd=ROOT / "bench",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    figures = json.loads(ran.stdout)
    assert figures["backed_up_known_after_restore"] == 6
    assert figures["backed_up_status_as_provider_after_sync"] == 6
    assert figures["stale_at_restore_refreshed_by_sync"] >= 1
    assert figures["made_after_backup_known"] == 0  # the window between backup and failure
    assert figures["made_after_backup_known_after_their_next_webhook"] == 1
    assert figures["known_after_rebuild_from_api_alone"] == 0
