# The two commands of the README: `make run` and `make test`. Both are idempotent.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: run test check lint chromium clean

$(INSTALLED): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(INSTALLED)

run: $(INSTALLED)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_demo
	$(BIN)/python manage.py runserver 127.0.0.1:8000

# Debian's chromium for the browser tests: installed when missing and we are root.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is missing: install Debian's chromium package (sudo apt-get install chromium)"; exit 1; fi; }

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

test: $(INSTALLED) chromium lint
	$(BIN)/pytest

# The everyday loop: lint, the import contracts and the fast tests of the back-office's apps.
check: lint
	$(BIN)/pytest -x -m "not browser and not services and not slow" \
	  tests/core tests/customers tests/payments tests/mirror tests/paymentsapi

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
