# Two commands matter: `make run` and `make test`. Both work on a fresh machine with only
# Python, make and apt: they create .venv, install the pinned requirements, then run.

VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501
PYTEST_ARGS ?=

.PHONY: run test soak lint format bench chromium clean plan

$(VENV)/.runtime-installed: requirements.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-installed: requirements-dev.txt $(VENV)/.runtime-installed
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

# A population file of your own (read once when the first page opens; see README "Run it"):
#   make run POPULATION=register.csv VALUE=income LOWER=0 UPPER=1000000 STRATUM=region CLUSTER=district
#   (CATEGORY=sector names the column that counts and frequency tables count by)
# The script arguments after "--" are passed only when POPULATION is set, each only when given.
APP_ARGS = $(if $(strip $(POPULATION)),-- --population '$(POPULATION)' \
	$(if $(strip $(VALUE)),--value '$(VALUE)') \
	$(if $(strip $(LOWER)),--lower '$(LOWER)') \
	$(if $(strip $(UPPER)),--upper '$(UPPER)') \
	$(if $(strip $(STRATUM)),--stratum '$(STRATUM)') \
	$(if $(strip $(CLUSTER)),--cluster '$(CLUSTER)') \
	$(if $(strip $(CATEGORY)),--category '$(CATEGORY)'))

## Start the app at http://localhost:$(PORT) (built-in populations; POPULATION=file adds yours)
run: $(VENV)/.runtime-installed
	OPENBLAS_NUM_THREADS=1 $(if $(strip $(MEMORY_BUDGET_MB)),PLANNER_MEMORY_BUDGET_MB='$(MEMORY_BUDGET_MB)') \
	$(VENV)/bin/streamlit run serve.py --server.port $(PORT) $(APP_ARGS)

## Plan a publication table in batch on a local Dask cluster (see README "Publication plan"):
##   make plan CONFIG=assets/publication_example.yaml [OUT=plan] [WORKERS=2] [SCHEDULER=tcp://host:8786]
CONFIG ?= assets/publication_example.yaml
OUT ?= plan
WORKERS ?= 2
plan: $(VENV)/.runtime-installed
	OPENBLAS_NUM_THREADS=1 $(PY) -m batch '$(CONFIG)' --out '$(OUT)' --workers $(WORKERS) \
	$(if $(strip $(SCHEDULER)),--scheduler '$(SCHEDULER)')

## Debian's Chromium for the browser tests (never a downloaded browser)
chromium:
	bash scripts/ensure-chromium.sh

## Lint, format check, type check and the whole test suite (browser tests included);
## the 15 slowest tests are listed at the end. Three test processes on two cores: a browser
## test spends much of its time waiting on its server and its browser, and with two processes
## the suite kept the cores busy only about half of the time.
TEST_WORKERS ?= 3
test: lint chromium
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=15 $(PYTEST_ARGS)

## The full classroom soak before a release: 30 concurrent browser sessions, each over every
## page, against a server of its own (make test runs it with one page per session)
soak: $(VENV)/.dev-installed chromium
	$(PY) -m pytest tests/e2e/test_classroom.py --soak -s

## ruff (lint and format check) and mypy over core/ and ui/ (configured in pyproject.toml)
lint: $(VENV)/.dev-installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy core ui

format: $(VENV)/.dev-installed
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

## Print the benchmark figures quoted in the issues (each bench runs as a module: bench.bench_x);
## bench_browser drives Debian's Chromium (before/after a revision: python -m bench.bench_browser
## --rows all --against REV)
bench: $(VENV)/.dev-installed chromium
	for f in bench/bench_*.py; do m=$$(basename $$f .py); echo "== $$f"; $(PY) -m bench.$$m || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis artifacts
