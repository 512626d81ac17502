# The two commands of the quick start; each sets itself up the first time.
#   make run    build NLQuAD from the bundled sample, offline (ARGS="..." adds options)
#   make test   lint and run the tests (ARGS="..." is passed to pytest)
#   make label-studio   Label Studio and its SDK in their own venv (.cache/label-studio-venv),
#               kept apart from ours because their pins clash with Beam's; the tests marked
#               label_studio use it and skip without it
# Set-up: a virtual environment in .venv with the project and its dev dependencies,
# reinstalled only when pyproject.toml changes (the stamp file is older than it).

PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.installed
LABEL_STUDIO_VENV := .cache/label-studio-venv
LABEL_STUDIO_STAMP := $(LABEL_STUDIO_VENV)/.installed
ARGS ?=

# Beam's worker processes (multi-process and portable runners) start `python` from PATH.
export PATH := $(BIN):$(PATH)

.PHONY: run test setup label-studio

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

label-studio: $(LABEL_STUDIO_STAMP)

$(LABEL_STUDIO_STAMP):
	@test -x $(LABEL_STUDIO_VENV)/bin/python || $(PYTHON) -m venv $(LABEL_STUDIO_VENV)
	$(LABEL_STUDIO_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		'label-studio==1.23.*' label-studio-sdk
	@touch $(LABEL_STUDIO_STAMP)
