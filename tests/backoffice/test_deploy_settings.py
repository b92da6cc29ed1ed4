"""The deploy kit carries every documented setting and leaks none: compose reads deploy/.env
(whose template, deploy/env.example, lists every variable of the README's and
docs/operations.md's settings tables), the image never receives an env file or a local
database, and every base image is pinned by digest."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")
# Read by a platform that runs the Procfile as it is; under compose GUNICORN_BIND decides.
NOT_FOR_COMPOSE = {"PORT"}
# compose's own (the database's password), not the application's.
COMPOSE_ONLY = {"POSTGRES_PASSWORD"}


def documented() -> set[str]:
    """The variables of the settings tables (first column) of the README and docs/operations.md."""
    names: set[str] = set()
    for page in ("README.md", "docs/operations.md"):
        text = (ROOT / page).read_text()
        table = text[text.index("| variable | default | meaning |") :].split("\n\n")[0]
        for row in table.splitlines()[2:]:
            names.update(re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split("|")[1]))
    return names


def env_example() -> set[str]:
    """Every variable deploy/env.example names, set or commented out with its default."""
    lines = (ROOT / "deploy" / "env.example").read_text().splitlines()
    return {m.group(1) for line in lines if (m := re.match(r"^#?\s?([A-Z][A-Z0-9_]+)=", line))}


def compose() -> dict:
    return yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())


def image_env() -> set[str]:
    text = (ROOT / "Dockerfile").read_text()
    blocks = re.findall(r"^ENV (.*?)\n(?!\s)", text, re.S | re.M)
    return {name for block in blocks for name in re.findall(r"([A-Z][A-Z0-9_]+)=", block)}


def test_the_tables_are_read_and_hold_what_the_issue_found_missing():
    names = documented()
    assert len(names) > 50
    assert {"EMAIL_URL", "OIDC_ISSUER", "STAFF_IDLE_MINUTES", "APPROVAL_TTL_HOURS", "SYNC_INTERVAL_SECONDS"} <= names


def test_compose_carries_every_documented_setting():
    services = compose()["services"]
    for name in ("migrate", "web", "worker", "beat"):
        assert services[name]["env_file"] == [{"path": ".env", "required": True}], name
    set_by_compose = set(services["web"]["environment"]) | set(services["worker"]["environment"])
    carried = env_example() | set_by_compose | image_env() | NOT_FOR_COMPOSE
    assert documented() - carried == set()


def test_env_example_names_only_documented_settings():
    assert env_example() - documented() - COMPOSE_ONLY == set()


def test_required_settings_are_set_in_the_example_and_optional_ones_commented():
    """An optional setting left empty would replace its default with "" (an error for a number)."""
    lines = (ROOT / "deploy" / "env.example").read_text().splitlines()
    empty = {line.split("=")[0] for line in lines if re.match(r"^[A-Z][A-Z0-9_]+=$", line)}
    assert empty <= {
        "SECRET_KEY",
        "POSTGRES_PASSWORD",
        "PAYMENTS_API_KEY",
        "PAYMENTS_WEBHOOK_SECRET",
        "SENTRY_DSN",
        "METRICS_TOKEN",
    }


def _ignored(path: str, patterns: list[str]) -> bool:
    """Docker's .dockerignore matching: `*` within a path segment, `**` across them, and a
    matched directory excludes what is under it."""
    for pattern in patterns:
        regex = re.escape(pattern).replace(r"\*\*/", "(.*/)?").replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
        parts = path.split("/")
        if any(re.fullmatch(regex, "/".join(parts[: i + 1])) for i in range(len(parts))):
            return True
    return False


def test_the_image_receives_no_env_file_and_no_local_database():
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for secret in (
        "deploy/.env",
        ".env",
        ".env.production",
        "deploy/production.env",
        "db.sqlite3",
        "db.sqlite3-wal",
        "sandbox.sqlite3",
        "backups/backoffice-2026-11-27.dump",
        ".venv/bin/python",
    ):
        assert _ignored(secret, patterns), secret
    for kept in ("deploy/env.example", "deploy/compose.yaml", "manage.py", "backoffice/settings.py", "Procfile"):
        assert not _ignored(kept, patterns), kept


def test_every_base_image_is_pinned_by_digest_with_its_tag_beside_it():
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    froms = [line.split()[1] for line in lines if line.startswith("FROM ")]
    assert froms == ["${PYTHON_IMAGE}", "${PYTHON_IMAGE}"]
    (index,) = [i for i, line in enumerate(lines) if line.startswith("ARG PYTHON_IMAGE=")]
    reference = lines[index].split("=", 1)[1]
    assert DIGEST.search(reference), reference
    assert lines[index - 1] == f"# {reference.split('@')[0]}"

    text = (ROOT / "deploy" / "compose.yaml").read_text()
    for name, service in compose()["services"].items():
        if "build" in service:
            continue
        assert DIGEST.search(service["image"]), (name, service["image"])
        tag = service["image"].split("@")[0]
        assert re.search(rf"# {re.escape(tag)} \(update: docker buildx imagetools inspect {re.escape(tag)}", text), name


def test_the_image_runs_as_a_numeric_user():
    users = re.findall(r"^USER (\S+)", (ROOT / "Dockerfile").read_text(), re.M)
    assert users == ["10001:10001"]
    assert "--uid 10001" in (ROOT / "Dockerfile").read_text()
