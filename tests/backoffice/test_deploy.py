"""The deployment kit agrees with itself: the Procfile is the one list of process commands;
the image's entrypoint (deploy/run) runs its lines, deploy/compose.yaml names them, and the
topology test (tests/integration/test_topology.py) starts them the same way. No image is
built or pulled here: what these files would do in Docker is checked by reading them."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROCESSES = {"release", "web", "worker", "beat"}


def procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return dict(line.split(":", 1) for line in lines if line.strip() and not line.startswith("#"))


def compose() -> dict:
    return yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())


def dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text()


def test_the_procfile_names_every_process():
    assert set(procfile()) == PROCESSES
    assert procfile()["web"].strip().startswith("gunicorn backoffice.wsgi")


@pytest.fixture
def stub_path(tmp_path):
    """gunicorn, celery and python that print how they were called instead of running."""
    for name in ("gunicorn", "celery", "python"):
        stub = tmp_path / name
        stub.write_text(f'#!/bin/sh\necho "{name} $*"\n')
        stub.chmod(0o755)
    return f"{tmp_path}{os.pathsep}{os.environ['PATH']}"


@pytest.mark.parametrize("name", sorted(PROCESSES))
def test_the_entrypoint_runs_the_procfile_line(name, stub_path, tmp_path):
    env = {**os.environ, "PATH": stub_path, "LOG_LEVEL": "WARNING", "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prom")}
    env.pop("CELERY_CONCURRENCY", None)
    env.pop("BEAT_SCHEDULE_FILE", None)
    ran = subprocess.run(
        [ROOT / "deploy" / "run", name, "--extra"], env=env, capture_output=True, text=True, timeout=30, check=True
    )
    expected = {
        "release": "python manage.py migrate --noinput --extra",
        "web": "gunicorn backoffice.wsgi --extra",
        "worker": "celery -A backoffice --quiet worker --loglevel WARNING --concurrency 2 --extra",
        "beat": "celery -A backoffice --quiet beat --loglevel WARNING --schedule /tmp/celerybeat-schedule --extra",
    }
    assert ran.stdout.strip() == expected[name]
    assert (tmp_path / "prom" / name).is_dir()  # each kind of process its own, emptied at start


def test_the_entrypoint_refuses_an_unknown_process(stub_path):
    ran = subprocess.run([ROOT / "deploy" / "run", "webb"], env={**os.environ, "PATH": stub_path}, capture_output=True)
    assert ran.returncode == 64
    assert b"no process named 'webb'" in ran.stderr


def test_compose_runs_the_procfile_through_the_image_entrypoint():
    services = compose()["services"]
    app_services = {name: s for name, s in services.items() if "build" in s}
    assert set(app_services) == {"migrate", "web", "worker", "beat"}
    commands = {name: s["command"] for name, s in app_services.items()}
    assert commands == {"migrate": ["release"], "web": ["web"], "worker": ["worker"], "beat": ["beat"]}
    assert {c[0] for c in commands.values()} == set(procfile())
    assert services["web"]["deploy"]["replicas"] == 2
    assert services["beat"]["deploy"]["replicas"] == 1
    assert services["migrate"]["restart"] == "no"
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert services[name]["environment"]["LOG_FORMAT"] == "json"
        assert services[name]["environment"]["DEBUG"] == "0"
    assert {"postgres", "redis"} <= set(services)
    assert "redis://redis:6379" in services["web"]["environment"]["CELERY_BROKER_URL"]


def test_the_image_is_multi_stage_non_root_runtime_only_with_static_and_a_healthcheck():
    text = dockerfile()
    assert len(re.findall(r"^FROM ", text, re.MULTILINE)) >= 2
    assert 'ENTRYPOINT ["/app/deploy/run"]' in text
    users = re.findall(r"^USER (\S+)", text, re.MULTILINE)
    assert users and users[-1] not in {"root", "0"}
    assert "collectstatic" in text
    assert re.search(r"^HEALTHCHECK .*\n\s+CMD .*healthcheck\.py", text, re.MULTILINE)
    installs = re.findall(r"pip install (.+)", text)
    assert installs and all("[dev]" not in line for line in installs)


@pytest.mark.slow
def test_the_runtime_needs_no_dev_package(tmp_path):
    """What `make run` installs is enough: the whole back-office imports and `manage.py check`
    passes with every dev extra made unimportable."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    dev = [re.split(r"[<>=\[ ]", req)[0] for req in project["optional-dependencies"]["dev"]]
    runtime = {re.split(r"[<>=\[ ]", req)[0] for req in project["dependencies"]}
    assert not runtime & set(dev)
    modules = {"pytest-django": "pytest_django", "factory-boy": "factory", "import-linter": "importlinter"}
    blocked = sorted({modules.get(name, name.replace("-", "_")) for name in dev} | {"pytest_playwright"})
    script = f"""
import importlib.abc, pkgutil, runpy, sys
BLOCKED = {blocked!r}
class NoDev(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"dev package imported at run time: {{name}}")
sys.meta_path.insert(0, NoDev())
sys.argv = ["manage.py", "check", "--fail-level", "ERROR"]
try:
    runpy.run_path("manage.py", run_name="__main__")
except SystemExit as exit:
    if exit.code:
        raise
import backoffice, core, customers, mirror, notifications, payments, paymentsapi, sandbox
for package in (backoffice, core, customers, mirror, notifications, payments, paymentsapi, sandbox):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if ".tests" not in info.name and not info.name.endswith(".tests"):
            importlib.import_module(info.name)
print("runtime ok")
"""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "backoffice.settings"}
    env.pop("DATABASE_URL", None)
    ran = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "runtime ok" in ran.stdout
