"""Build an NLQuAD-style release from archived BBC News pages.

    python -m pipelines.build_nlquad --runner=DirectRunner            # bundled sample, offline
    python -m pipelines.build_nlquad --source html --input 'pages/*.html'
    python -m pipelines.build_nlquad --source warc --input 'crawl/*.warc.gz'
    python -m pipelines.build_nlquad --source wayback --from 2016 --to 2020

Options not listed by ``--help`` are Beam pipeline options (``--runner``,
``--direct_running_mode``, ``--direct_num_workers``, Dataflow options, ...).
Declared in ``transforms.nlquad.spec``.
"""

import argparse
import sys

from pipelines.cli.beam_options import parse_pipeline_args
from pipelines.cli.entry import cli_main
from pipelines.cli.spec_parser import build_parser as spec_parser
from pipelines.cli.spec_parser import options_from
from pipelines.cli.spec_runner import run_options
from transforms.nlquad.spec import SPEC

format_summary = SPEC.summary
#: options whose name is not their field's (``from`` is a Python keyword); the spec parser
#: names every option after its field, so the names are restored here
CLI_NAMES = {"from_year": "--from", "to_year": "--to"}


def build_parser() -> argparse.ArgumentParser:
    parser = spec_parser(SPEC)
    for action in parser._actions:  # noqa: SLF001 - argparse lists options only here
        if action.dest in CLI_NAMES:
            for name in action.option_strings:
                del parser._option_string_actions[name]  # noqa: SLF001
            action.option_strings = [CLI_NAMES[action.dest]]
            parser._option_string_actions[action.option_strings[0]] = action  # noqa: SLF001
    return parser


def run(argv: list[str] | None = None) -> dict:
    args, beam_args = parse_pipeline_args(build_parser(), argv)
    return run_options(SPEC, options_from(SPEC, args), beam_args)


def main(argv: list[str] | None = None) -> int:
    return cli_main(run, format_summary, argv)


if __name__ == "__main__":
    sys.exit(main())
