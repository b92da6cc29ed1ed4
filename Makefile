# The two commands of the README: `make run` and `make test`. Both are idempotent.
# Python 3.11 or newer: python3 when it is new enough, else python3.11.
PYTHON ?= $(shell python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && command -v python3 || command -v python3.11)
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip install --quiet --disable-pip-version-check
# What `make run` needs (the runtime dependencies), and what `make test` adds (the dev extras).
RUNTIME := $(VENV)/.runtime-installed
DEV := $(VENV)/.dev-installed
SEED_LOG := $(VENV)/seed-demo.log

.PHONY: run test check lint chromium clean

$(RUNTIME): pyproject.toml
	@test -x $(BIN)/python || { test -n "$(PYTHON)" || { echo "Python 3.11 or newer is needed (python3 or python3.11)"; exit 1; }; $(PYTHON) -m venv $(VENV); }
	@echo "Installing the runtime dependencies into $(VENV)..."
	@$(PIP) -e .
	@touch $@

$(DEV): $(RUNTIME)
	@echo "Installing the dev extras (test tools) into $(VENV)..."
	@$(PIP) -e '.[dev]'
	@touch $@

# Serves on http://127.0.0.1:8000 with the embedded defaults; the demo logins come last,
# once the server answers (a helper in the background waits for it and prints them; the
# server stays in the foreground, so Ctrl-C stops it).
define WAIT_AND_SHOW_LOGINS
import sys, time, urllib.request
for _ in range(240):
    try:
        urllib.request.urlopen("http://127.0.0.1:8000/healthz", timeout=1)
        break
    except OSError:
        time.sleep(0.25)
else:
    sys.exit("The server did not answer on http://127.0.0.1:8000/healthz")
lines = [l.rstrip() for l in open(sys.argv[1]) if l.startswith(("Demo staff", "  demo-"))]
bar = "=" * 78
print("\n" + bar + "\n  The back-office is at http://127.0.0.1:8000/ (Ctrl-C stops it)\n")
print("\n".join("  " + l for l in lines))
print(bar + "\n", flush=True)
endef
export WAIT_AND_SHOW_LOGINS

run: $(RUNTIME)
	@$(BIN)/python -c "import socket, sys; sys.exit(socket.socket().connect_ex(('127.0.0.1', 8000)) == 0 and 'Something already listens on 127.0.0.1:8000: stop it first')"
	@$(BIN)/python manage.py migrate --noinput -v 0
	@echo "Seeding the sandbox and the mirror..."
	@LOG_LEVEL=WARNING $(BIN)/python manage.py seed_demo > $(SEED_LOG)
	@$(BIN)/python -c "$$WAIT_AND_SHOW_LOGINS" $(SEED_LOG) & \
	  LOG_LEVEL=WARNING exec $(BIN)/python manage.py runserver 127.0.0.1:8000

# Debian's chromium for the browser tests: installed when missing and we are root.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is missing: install Debian's chromium package (sudo apt-get install chromium)"; exit 1; fi; }

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

# Test processes keep their bytecode (and pytest's rewritten test modules) in the virtualenv,
# even where PYTHONDONTWRITEBYTECODE is set: every process of a run (the workers, the
# manage.py, gunicorn and Celery processes the tests start) and the next run reuse it, and
# the checkout stays clean.
PYTEST := PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(abspath $(VENV))/pycache $(BIN)/pytest
# The whole suite in parallel (pytest-xdist): one worker more than the cores (the browser
# tests and the started processes leave a core waiting now and then), at most four. Each
# worker has its own test database, live server, browser and Redis database (conftest.py);
# `make test TEST_WORKERS=0` runs it in one process. Timings: docs/operations.md, "Test suite".
TEST_WORKERS ?= $(shell python3 -c 'import os; print(min(4, len(os.sched_getaffinity(0)) + 1))' 2>/dev/null || echo 2)

test: $(DEV) chromium lint
	$(PYTEST) -n $(TEST_WORKERS) --dist worksteal --durations=15

# The everyday loop: lint, the import contracts and the fast tests of the back-office's apps.
# One process: workers measured no faster here (docs/operations.md, "Test suite").
check: lint
	$(PYTEST) -x -m "not browser and not services and not slow" \
	  tests/core tests/staff tests/customers tests/payments tests/mirror tests/paymentsapi tests/search tests/monitoring

clean:
	rm -rf $(VENV) db.sqlite3 db.sqlite3-wal db.sqlite3-shm staticfiles
