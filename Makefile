# The two commands of the quick start; each sets itself up the first time.
#   make run    build NLQuAD from the bundled sample, offline (ARGS="..." adds options)
#   make test   lint and run the tests (ARGS="..." is passed to pytest) on 2 pytest-xdist
#               workers, a test file each at a time; serially when ARGS names a test file
#               (*.py) or with WORKERS=0 (WORKERS=N for N workers; ARGS="-p no:xdist" too)
#   make docs   build the documentation site into build/docs-site/ (mkdocs, strict: a broken
#               link or anchor fails; open build/docs-site/index.html, search works from disk);
#               make serve-docs serves it on 127.0.0.1:8000 while you edit. Not site/: that is
#               where release browse writes its sites, which make docs would delete
#   make browser   Debian's chromium and chromedriver for the tests marked browser, and a
#               Japanese font for readable JNQ screenshots (needs root and apt-get; does
#               nothing when they are installed)
#   make label-studio   Label Studio and its SDK in their own venv (.cache/label-studio-venv),
#               kept apart from ours because their pins clash with Beam's; the tests marked
#               label_studio use it and skip without it
# Set-up: a virtual environment in .venv with the project and its dev dependencies,
# reinstalled only when pyproject.toml, setup.py or a C source changes (the stamp file is older
# than it); the install compiles the C extensions with the machine's gcc.

PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.installed
LABEL_STUDIO_VENV := .cache/label-studio-venv
LABEL_STUDIO_STAMP := $(LABEL_STUDIO_VENV)/.installed
ARGS ?=
# Workers for make test: 3 for the suite, a directory or a -k/-m selection, on our 2-core
# machines and CI's: many files wait on other processes (Label Studio, Chromium, Beam's job
# services, the CLI's subprocesses), and a third worker runs while one waits (measured on 2
# idle cores, 2026-11-29: 10 min 48 s with 2 workers, twice; 9 min 45 s with 3; the same
# CPU time, 1,020 s); none when ARGS names a file or a test (one file gains nothing from
# workers, which take seconds to start). --dist loadfile keeps each file on one worker, so a
# module fixture is built once; the scheduler of tests/schedule.py hands out the longest file
# left first (by tests/fixtures/test_seconds.json; ARGS=--write-test-seconds refreshes it), so
# the run ends on short files; --no-loadscope-reorder stops xdist sorting by test count.
WORKERS ?= $(if $(findstring .py,$(ARGS)),0,3)
PYTEST_WORKERS = $(if $(findstring no:xdist,$(ARGS)),,-n $(WORKERS) --dist loadfile \
	--no-loadscope-reorder)

# Beam's worker processes (multi-process and portable runners) start `python` from PATH.
export PATH := $(BIN):$(PATH)

.PHONY: run test setup docs serve-docs label-studio browser

setup: $(STAMP)

$(STAMP): pyproject.toml setup.py $(wildcard filters/*/*.c transforms/*/*.c)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else \
		"Python 3.11 or newer is needed; run: make PYTHON=python3.11 ...")'
	@test -x $(BIN)/python || { echo "First-time set-up: a virtual environment in $(VENV) with the \
	project and its pinned dependencies (about 1.5 GB from PyPI; 1-7 minutes). Later runs skip \
	this."; $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m pipelines.build_nlquad --runner=DirectRunner --skip-existing $(ARGS)

# The project's bytecode is compiled once before the tests: with PYTHONDONTWRITEBYTECODE set
# (as some sandboxes and CI images do) every command a test starts would compile it again.
# pytest runs without it: pytest keeps the test modules it rewrites (for its assert messages)
# only where bytecode may be written, and rewriting all of them cost each worker 16 s of CPU
# at every run (8 s to collect the suite with them kept, 24 s without).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m compileall -q filters pipelines transforms tests benchmarks > /dev/null
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest $(PYTEST_WORKERS) $(ARGS)

docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict

serve-docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs serve --strict -a 127.0.0.1:8000

label-studio: $(LABEL_STUDIO_STAMP)

$(LABEL_STUDIO_STAMP):
	@test -x $(LABEL_STUDIO_VENV)/bin/python || $(PYTHON) -m venv $(LABEL_STUDIO_VENV)
	$(LABEL_STUDIO_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		'label-studio==1.23.*' label-studio-sdk
	@touch $(LABEL_STUDIO_STAMP)

browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null \
		&& fc-list :lang=ja | grep -q .; then \
		echo "chromium, chromedriver and a Japanese font are installed"; \
	else \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			chromium chromium-driver fonts-ipafont-gothic; \
	fi
