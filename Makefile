# The two commands of the quick start; each sets itself up the first time.
#   make run    build NLQuAD from the bundled sample, offline (ARGS="..." adds options)
#   make test   lint and run the tests (ARGS="..." is passed to pytest)
# Set-up: a virtual environment in .venv with the project and its dev dependencies,
# reinstalled only when pyproject.toml changes (the stamp file is older than it).

PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.installed
ARGS ?=

# Beam's worker processes (multi-process and portable runners) start `python` from PATH.
export PATH := $(BIN):$(PATH)

.PHONY: run test setup

setup: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else \
		"Python 3.11 or newer is needed; run: make PYTHON=python3.11 ...")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m pipelines.build_nlquad --runner=DirectRunner --skip-existing $(ARGS)

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest $(ARGS)
