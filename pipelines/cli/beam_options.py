"""Parse a pipeline's own options and check that everything else is a Beam pipeline option.

Beam drops an option it does not know with a log line ("Discarding unparseable args") and
runs anyway, so ``--export-squat`` or ``--runer=...`` would silently do nothing. We build
the parser Beam itself uses (every ``PipelineOptions`` subclass registers its options, as
in ``PipelineOptions.get_all_options``) and reject what neither parser accepts, and an
unknown ``--runner`` name, before any work. Every error is a ``UsageError`` (exit code 2 from
``cli_main``), never argparse's ``SystemExit``. Beam is imported only when there are
arguments to check: a command line of the pipeline's own options alone never imports it.
"""

from __future__ import annotations

import argparse
from functools import lru_cache
from typing import Any, NoReturn

from pipelines.cli.errors import UsageError
from pipelines.cli.options import RUN_OPTIONS, add_run_arguments, apply_progress_choice
from pipelines.cli.parsers import apply_program_name, raise_usage_errors


@lru_cache(maxsize=1)
def beam_parser() -> Any:
    """The parser of every Beam pipeline option (built once), raising ``UsageError`` instead
    of printing Beam's long usage."""
    from apache_beam.options.pipeline_options import PipelineOptions, _BeamArgumentParser

    class _RaisingBeamParser(_BeamArgumentParser):
        def error(self, message: str) -> NoReturn:
            raise UsageError(f"Beam pipeline option: {message}")

    parser = _RaisingBeamParser(allow_abbrev=False, add_help=False)
    classes = {str(cls): cls for cls in PipelineOptions.__subclasses__()}
    for cls in classes.values():
        cls._add_argparse_args(parser)  # noqa: SLF001 - how Beam builds the same parser
    return parser


def _runner_is_known(name: str) -> bool:
    """Beam's own lookup (``runners.runner.create_runner``): a known name, with or without
    the ``Runner`` suffix, in any case, or a dotted class path."""
    from apache_beam.options.pipeline_options import StandardOptions

    known = {path.rsplit(".", 1)[-1].lower() for path in StandardOptions.ALL_KNOWN_RUNNERS}
    lowered = name.lower()
    return "." in name or lowered in known or lowered + "runner" in known


def check_beam_args(beam_args: list[str], prog: str) -> None:
    """Raise ``UsageError`` for arguments that are not Beam pipeline options, or for an
    unknown ``--runner``. No arguments, nothing to check (and Beam is not imported)."""
    if not beam_args:
        return
    known, unknown = beam_parser().parse_known_args(beam_args)
    if unknown:
        raise UsageError(f"unrecognized options: {' '.join(unknown)} (neither an option of "
                         f"{prog} nor a Beam pipeline option; see {prog} --help)")
    runner = getattr(known, "runner", None)
    if runner and not _runner_is_known(runner):
        from apache_beam.options.pipeline_options import StandardOptions

        raise UsageError(f"unknown runner {runner!r}; valid runners: "
                         f"{', '.join(StandardOptions.KNOWN_RUNNER_NAMES)}, or the fully "
                         "qualified name of a PipelineRunner subclass")


def parse_pipeline_args(parser: argparse.ArgumentParser,
                        argv: list[str] | None) -> tuple[argparse.Namespace, list[str]]:
    """The pipeline's options and the Beam arguments, after checking the latter. A bad
    command line raises ``UsageError``, also from the pipeline's later ``parser.error``.

    Adds ``--progress`` and ``--verbose`` (``pipelines.cli.options.add_run_arguments``) and
    takes them out of the returned options: they change what a run shows, not what it
    releases, so manifests do not record them. ``cli_main`` applies them before the run; an
    explicit ``--progress`` is applied here too, for callers of ``run`` itself."""
    add_run_arguments(parser)
    raise_usage_errors(apply_program_name(parser))
    args, beam_args = parser.parse_known_args(argv)
    check_beam_args(beam_args, parser.prog)
    if args.progress is not None:
        apply_progress_choice(args.progress)
    for name in RUN_OPTIONS:
        delattr(args, name)
    return args, beam_args
