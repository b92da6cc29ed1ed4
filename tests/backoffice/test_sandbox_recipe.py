"""docs/sandbox.md's standalone recipe works as written: its settings install, migrate and
route the sandbox on its own urlconf."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def recipe() -> tuple[dict, dict]:
    """(the exported settings, the runserver line's own settings) of the recipe."""
    page = (ROOT / "docs" / "sandbox.md").read_text()
    block = re.search(r"## On its own\n+```sh\n(.*?)```", page, re.S).group(1)
    exported, serving = {}, {}
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        if words[:1] == ["export"]:
            exported.update(word.split("=", 1) for word in words[1:])
        elif "runserver" in words:
            serving.update(word.split("=", 1) for word in words if re.match(r"^[A-Z_]+=", word))
    return exported, serving


def test_the_standalone_recipe_serves_the_sandbox(tmp_path):
    exported, serving = recipe()
    assert exported["PAYMENTS_API_BASE_URL"] == "http://127.0.0.1:8001/sandbox"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SANDBOX_MOUNTED", "ROOT_URLCONF")}
    env.update(exported)
    env.update(serving)
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'sandbox.sqlite3'}"  # the recipe's, somewhere temporary
    script = (
        "from django.urls import resolve; from django.apps import apps;"
        "print(apps.is_installed('sandbox'), resolve('/sandbox/customers').url_name is not None)"
    )
    migrated = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert migrated.returncode == 0, migrated.stderr[-2000:]
    ran = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.strip().splitlines()[-1].split() == ["True", "True"]
