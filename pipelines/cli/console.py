"""``qa-build <dataset> [OPTIONS]``: one console script for every dataset pipeline.

``qa-build nlquad --source html --input 'pages/*.html'`` is
``python -m pipelines.build_nlquad --source html --input 'pages/*.html'``, with the same options,
output and exit codes (``pipelines.cli.errors``); ``--help`` after the dataset shows the
pipeline's options. ``qa-release``, ``qa-annotate`` and ``qa-evaluate`` are the ``main`` of
``pipelines.release``, ``pipelines.annotate`` and ``pipelines.evaluate`` run as the program
the user typed (``release``, ``annotate``, ``evaluate``: their usage and messages say
``qa-release``), with ``--help`` printed without importing Beam (``pyproject.toml``).
"""

from __future__ import annotations

import difflib
import importlib
import sys
from typing import Any

from pipelines.cli.errors import EXIT_OK, EXIT_USAGE
from pipelines.cli.parsers import program_name
from pipelines.cli.quick_help import exit_with_stored_help, stored_help
from transforms import registry

PROGRAM = "qa-build"

def usage() -> str:
    """The help of ``qa-build`` itself: its datasets."""
    width = max(map(len, registry.names()))
    lines = [f"usage: {PROGRAM} DATASET [OPTIONS]  (or {PROGRAM} DATASET --help)", "",
             "Build a dataset release; the options are those of "
             "python -m pipelines.build_<dataset>.", "", "datasets:"]
    lines += [f"  {spec_name:{width}s}  {registry.spec(spec_name).about}"
              for spec_name in registry.names()]
    return "\n".join(lines)


def spec_main(spec: Any, argv: list[str]) -> int:
    """``pipelines.cli.spec_runner.spec_main``, imported when a dataset is run (it imports
    Beam)."""
    from pipelines.cli.spec_runner import spec_main as run

    return run(spec, argv)


def build(argv: list[str] | None = None) -> int:
    """The ``qa-build`` console script: run ``pipelines.build_<dataset>.main``. Help is
    printed without importing Beam (``pipelines.cli.quick_help``)."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(f"{usage()}\n\nerror: name a dataset", file=sys.stderr)
        return EXIT_USAGE
    name, rest = argv[0], argv[1:]
    if name in ("-h", "--help"):
        print((stored_help(PROGRAM, [name]) or usage() + "\n").rstrip("\n"))
        return EXIT_OK
    name = registry.ALIASES.get(name, name)
    exit_with_stored_help(f"{PROGRAM} {name}", rest)
    if name not in registry.names():
        close = difflib.get_close_matches(name, registry.names(), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        print(f"error: unknown dataset {name!r}{hint}; choose from "
              f"{', '.join(registry.names())}", file=sys.stderr)
        return EXIT_USAGE
    with program_name(f"{PROGRAM} {name}"):
        return spec_main(registry.spec(name), rest)


def release(argv: list[str] | None = None) -> int:
    """The ``qa-release`` console script: ``pipelines.release.main`` as ``qa-release``."""
    exit_with_stored_help("qa-release", sys.argv[1:] if argv is None else argv)
    module = importlib.import_module("pipelines.release")  # by name: pipelines.cli is below it

    with program_name("qa-release"):
        return module.main(sys.argv[1:] if argv is None else argv)


def annotate(argv: list[str] | None = None) -> int:
    """The ``qa-annotate`` console script: ``pipelines.annotate.main`` as ``qa-annotate``."""
    exit_with_stored_help("qa-annotate", sys.argv[1:] if argv is None else argv)
    module = importlib.import_module("pipelines.annotate")

    with program_name("qa-annotate"):
        return module.main(sys.argv[1:] if argv is None else argv)


def evaluate(argv: list[str] | None = None) -> int:
    """The ``qa-evaluate`` console script: ``pipelines.evaluate.main`` as ``qa-evaluate``."""
    exit_with_stored_help("qa-evaluate", sys.argv[1:] if argv is None else argv)
    module = importlib.import_module("pipelines.evaluate")

    with program_name("qa-evaluate"):
        return module.main(sys.argv[1:] if argv is None else argv)
