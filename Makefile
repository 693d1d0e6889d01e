# Two commands matter: `make run` and `make test`. Both work on a fresh machine with only
# Python, make and apt: they create .venv, install the pinned requirements, then run.

VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501
PYTEST_ARGS ?=

.PHONY: run test lint format bench chromium clean

$(VENV)/.runtime-installed: requirements.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-installed: requirements-dev.txt $(VENV)/.runtime-installed
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

## Start the app on the built-in Lognormal population at http://localhost:$(PORT)
run: $(VENV)/.runtime-installed
	OPENBLAS_NUM_THREADS=1 $(VENV)/bin/streamlit run app.py --server.port $(PORT)

## Debian's Chromium for the browser tests (never a downloaded browser)
chromium:
	bash scripts/ensure-chromium.sh

## Lint, format check and the whole test suite, browser tests included
test: $(VENV)/.dev-installed chromium
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -n 2 --dist loadgroup $(PYTEST_ARGS)

lint: $(VENV)/.dev-installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: $(VENV)/.dev-installed
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

## Print the benchmark figures quoted in the issues
bench: $(VENV)/.dev-installed
	for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis artifacts
