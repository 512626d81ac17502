"""The command-line reference (``docs/reference/cli.md``), generated from the parsers.

    python -m pipelines.cli.reference --write    # regenerate docs/reference/cli.md
    python -m pipelines.cli.reference --check    # exit 1, with a diff, when it is stale

``--write`` also writes ``pipelines/cli/help.json``, the ``--help`` that the commands whose
parsers import Beam print without importing it (``quick_help``), and
``transforms/releases.json``, each release kind's renderer and evaluator, which ``release
browse`` and ``evaluate`` read without importing a spec (``transforms.registry``);
``--check`` checks both too.

Every command and subcommand gets a heading, the console script that runs it, its
description, its usage and a table of its options (flag, value, default, help), made from the
same argparse parsers the commands use, at a fixed width (no terminal dependence).
``parse_example(argv)`` finds the parser of a command line as the docs write it and parses
it, so documentation tests can check that every example is one the toolkit accepts.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import os
import shlex
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pipelines.cli.errors import EXIT_OK, UsageError
from pipelines.cli.markdown import cell
from pipelines.cli.options import add_run_arguments
from pipelines.cli.parsers import (
    HelpFormatter,
    program_name,
    raise_usage_errors,
    shown_default,
)
from pipelines.cli.quick_help import HELP_FILE

WIDTH = 100
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "docs" / "reference" / "cli.md"
HELP_FLAGS = ("-h", "--help")


@dataclass(frozen=True)
class Command:
    """One command: how the docs run it, its console script, how its parser is made, and
    whether the rest of its command line may be Beam pipeline options."""

    module: str  # pipelines.<module>
    script: str  # the console script that runs it ("" for none)
    parser: Callable[[], argparse.ArgumentParser]
    beam: bool = False  # Beam pipeline options are accepted (checked against Beam's parser)

    @property
    def command(self) -> str:
        return f"python -m pipelines.{self.module}"


def _module_parser(module: str, run_arguments: bool = False
                   ) -> Callable[[], argparse.ArgumentParser]:
    """``pipelines.<module>.build_parser``, with ``--progress`` and ``--verbose`` when the
    command adds them at run time (``parse_pipeline_args``)."""

    def make() -> argparse.ArgumentParser:
        parser = importlib.import_module(f"pipelines.{module}").build_parser()
        if run_arguments:
            add_run_arguments(parser)
        return parser

    return make


def _evaluate_baseline_parser() -> argparse.ArgumentParser:
    """``evaluate baseline``'s parser: a command of its own, which ``evaluate``'s ``main``
    dispatches to before its parser reads the task."""
    return importlib.import_module("pipelines.evaluate").build_baseline_parser()


def commands() -> list[Command]:
    """Every command of the toolkit, in the order the reference lists them."""
    from transforms import registry

    found = [Command(spec.module, f"qa-build {name}", _module_parser(spec.module, True), True)
             for name, spec in ((name, registry.spec(name)) for name in registry.names())]
    return [*found,
            Command("nq_candidates", "", _module_parser("nq_candidates")),
            Command("annotate", "qa-annotate", _module_parser("annotate", True), True),
            Command("evaluate", "qa-evaluate", _module_parser("evaluate")),
            Command("evaluate baseline", "qa-evaluate baseline", _evaluate_baseline_parser),
            Command("release", "qa-release", _module_parser("release")),
            Command("flex_templates", "", _module_parser("flex_templates")),
            Command("cli.reference", "", build_parser)]


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands' parsers of ``parser`` by name (empty when it has none)."""
    for action in parser._actions:  # argparse keeps the subcommands' parsers only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    return HelpFormatter(parser.prog, width=WIDTH)


def usage(parser: argparse.ArgumentParser) -> str:
    """``usage: ...`` of ``parser``, wrapped at ``WIDTH``."""
    formatter = _formatter(parser)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


def option_name(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """How the reference names an option (its option strings) or a positional argument (its
    metavar, as the usage shows it)."""
    if action.option_strings:
        return ", ".join(action.option_strings)
    return _formatter(parser)._metavar_formatter(action, action.dest)(1)[0]


def option_row(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """``| flag | value | default | help |`` of one option or positional argument."""
    formatter = _formatter(parser)
    flag = option_name(parser, action)
    value = ""
    if action.option_strings and action.nargs != 0:
        value = formatter._format_args(action, action.dest.upper())
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        value = ", ".join(f"`{choice}`" for choice in action.choices)
    else:
        value = _code(value)
    shown = shown_default(action)
    default = "required" if action.required and action.option_strings else _code(shown or "")
    plain = argparse.HelpFormatter(parser.prog)  # the help as written, without the default
    help_text = plain._expand_help(action) if action.help else ""
    return f"| {cell(_code(flag))} | {cell(value)} | {cell(default)} | {cell(help_text)} |"


def section(title: str, script: str, parser: argparse.ArgumentParser, beam: bool,
            about: str = "") -> list[str]:
    """The reference of one command or subcommand (``about``: its help in its parent's list
    of commands, shown when it has no description)."""
    lines = [f"## `{title}`", ""]
    if script:
        lines += [f"Also `{script}`.", ""]
    if parser.description or about:
        lines += [cell(parser.description or about[:1].upper() + about[1:] + "."), ""]
    if beam and "Beam" not in (parser.description or about):
        lines += ["Any other `--option` must be an Apache Beam pipeline option (`--runner`, "
                  "`--direct_num_workers`, ...).", ""]
    lines += ["```text", usage(parser), "```", ""]
    rows = [option_row(parser, action) for action in parser._actions
            if not isinstance(action, argparse._HelpAction | argparse._SubParsersAction)]
    if rows:
        lines += ["| option | value | default | help |", "|---|---|---|---|", *rows, ""]
    commands_of = subcommands(parser)
    if commands_of:
        lines += ["Commands: " + ", ".join(f"`{name}`" for name in commands_of) + ".", ""]
    return lines


def _walk(command: Command) -> Iterator[tuple[str, str, argparse.ArgumentParser, bool, str]]:
    """The command and each of its subcommands: (title, console script, parser, Beam, its
    help in the list of commands)."""
    parser = command.parser()
    subs = subcommands(parser)
    yield command.command, command.script, parser, command.beam and not subs, ""
    helps = {choice.dest: choice.help or "" for action in parser._actions
             if isinstance(action, argparse._SubParsersAction)
             for choice in action._choices_actions}
    for name, sub in subs.items():
        script = f"{command.script} {name}" if command.script else ""
        yield (f"{command.command} {name}", script, sub, command.beam and name == "import",
               helps.get(name, ""))


def reference() -> str:
    """The whole reference, as Markdown."""
    from pipelines.cli.console import usage as qa_build_usage

    lines = ["# Command-line reference", "",
             "Generated from the commands' own parsers by `python -m pipelines.cli.reference "
             "--write`; `--check` (run by the tests) fails when this page is stale. Each "
             "`--dash-name` option also answers to `--dash_name` (the spelling Dataflow Flex "
             "Templates pass). Exit codes are listed in `pipelines/cli/errors.py`.", "",
             "## `qa-build`", "", "```text", qa_build_usage(), "```", ""]
    for command in commands():
        for title, script, parser, beam, about in _walk(command):
            lines += section(title, script, parser, beam, about)
    return "\n".join(lines).rstrip("\n") + "\n"


@contextmanager
def _columns(width: int) -> Iterator[None]:
    """argparse wraps help at ``COLUMNS`` - 2: fix it for the stored help."""
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width + 2)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved


#: commands without Beam options whose modules import Beam: their help is stored too
STORED_HELP = ("release", "evaluate", "evaluate baseline")


def help_texts() -> dict[str, str]:
    """The ``--help`` of every command whose module imports Beam, by the program name it is
    run as (``quick_help``): the builders, ``annotate``, ``release`` and their subcommands,
    ``evaluate`` (also as ``evaluate TASK``, whose help it is) and ``evaluate baseline``,
    ``qa-build``."""
    from pipelines.cli.console import usage as qa_build_usage
    from transforms import registry

    texts = {"qa-build": qa_build_usage() + "\n"}
    with _columns(WIDTH):
        for command in commands():
            if not command.beam and command.module not in STORED_HELP:
                continue
            for program in (command.command, command.script.split(" ")[0]
                            if command.module in ("annotate", "release") else command.script):
                with program_name(program):
                    parser = command.parser()
                parser.prog = program
                texts[program] = parser.format_help()
                for name, sub in subcommands(parser).items():
                    texts[f"{program} {name}"] = sub.format_help()
                if command.module == "evaluate":
                    # quick_help reads "<program> <first word>" once "<program> baseline" is
                    # stored: "evaluate TASK --help" prints evaluate's help, stored per task
                    texts.update({f"{program} {task}": texts[program]
                                  for task in registry.evaluation_tasks()})
    return texts


def _resolve(argv: list[str]) -> tuple[Command, list[str], str]:
    """The command an example runs, its arguments and its program name."""
    words = list(argv)
    while words and "=" in words[0] and not words[0].startswith("-"):  # VAR=value prefixes
        words = words[1:]
    if not words:
        raise UsageError("empty command line")
    program = os.path.basename(words[0])
    known = commands()
    if program.startswith("python"):
        if len(words) < 3 or words[1] != "-m":
            raise UsageError(f"not a toolkit command: {shlex.join(argv)} (expected python -m "
                             "pipelines.<command>)")
        module = words[2].removeprefix("pipelines.")
        rest = words[3:]
        if module == "evaluate" and rest[:1] == ["baseline"]:
            module, rest = "evaluate baseline", rest[1:]
        for command in known:
            if words[2].startswith("pipelines.") and command.module == module:
                return command, rest, command.command
        raise UsageError(f"not a toolkit command: python -m {words[2]}")
    if program == "qa-build":
        return _resolve_qa_build(words[1:], known)
    if program == "qa-evaluate" and words[1:2] == ["baseline"]:
        program, words = "qa-evaluate baseline", words[1:]
    for command in known:
        if command.script and command.script == program:
            return command, words[1:], program
    raise UsageError(f"not a toolkit command: {program}")


def _resolve_qa_build(rest: list[str], known: list[Command]) -> tuple[Command, list[str], str]:
    from transforms import registry

    if not rest:
        raise UsageError("qa-build: name a dataset")
    if rest[0] in HELP_FLAGS:
        raise _HelpOnly
    name = registry.ALIASES.get(rest[0], rest[0])
    for command in known:
        if command.script == f"qa-build {name}":
            return command, rest[1:], command.script
    raise UsageError(f"qa-build: unknown dataset {rest[0]!r}")


def strict(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` (and its subcommands' parsers) without abbreviations: an example must
    spell every option in full (``--min-user`` for ``--min-users`` is refused)."""
    parser.allow_abbrev = False
    for sub in subcommands(parser).values():
        strict(sub)
    return parser


class _HelpOnly(Exception):
    """``qa-build --help``: nothing to parse."""


def parse_example(argv: list[str]) -> None:
    """Parse a command line as the docs write it (``['python', '-m', 'pipelines.build_nq',
    '--input', 'x']``, ``['qa-release', 'verify', 'DIR']``, ``['.venv/bin/python', '-m', ...]``,
    leading ``VAR=value`` words skipped) with the parser of the command it runs. Arguments
    that are not the command's own must be Apache Beam pipeline options, for the commands
    that take them (the builders, ``annotate import``), as when they run. ``--help`` only
    checks the command (and subcommand) named. Raises ``UsageError`` for an unknown or
    misspelt option, a bad value, a missing required option or a command that is not the
    toolkit's, and for an abbreviated option (an example spells options in full); returns
    None when the command line parses."""
    try:
        command, rest, program = _resolve(argv)
    except _HelpOnly:
        return
    with program_name(program):
        parser = strict(raise_usage_errors(command.parser()))
    parser.prog = program
    subs = subcommands(parser)
    if any(word in HELP_FLAGS for word in rest):
        chosen = next((word for word in rest if not word.startswith("-")), None)
        if subs and chosen is not None and chosen not in subs:
            raise UsageError(f"{program}: unknown command {chosen!r}")
        return
    if not command.beam:
        parser.parse_args(rest)
        return
    from pipelines.cli.beam_options import check_beam_args

    args, beam_args = parser.parse_known_args(rest)
    if subs and args.command != "import" and beam_args:
        raise UsageError(f"unrecognized options: {' '.join(beam_args)}")
    check_beam_args(beam_args, program)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m pipelines.cli.reference``."""
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.cli.reference", formatter_class=HelpFormatter,
        description="Write or check the command-line reference generated from the parsers, "
                    "the dataset catalogue generated from the dataset specs "
                    "(datasets.md next to it), the stored --help (pipelines/cli/help.json) and "
                    "the stored release kinds (transforms/releases.json).")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", nargs="?", const=str(DEFAULT_PATH), metavar="PATH",
                      help="write the reference to PATH (default: docs/reference/cli.md of "
                           "this checkout)")
    mode.add_argument("--check", nargs="?", const=str(DEFAULT_PATH), metavar="PATH",
                      help="exit 1, showing the difference, when PATH is not the reference "
                           "the parsers make now (default: the same file)")
    return parser


def _stale(path: Path, text: str) -> str | None:
    """Why ``path`` does not hold ``text`` (a short diff), or None when it does."""
    current = path.read_text(encoding="utf-8") if path.is_file() else ""
    if current == text:
        return None
    diff = list(difflib.unified_diff(current.splitlines(), text.splitlines(), str(path),
                                     "generated", lineterm="", n=1))
    return "\n".join(diff[:60]) + ("\n..." if len(diff) > 60 else "")


def main(argv: list[str] | None = None) -> int:
    from pipelines.cli import catalogue
    from transforms import registry

    args = build_parser().parse_args(argv)
    path = Path(args.write or args.check)
    pages = {path: reference(), path.with_name("datasets.md"): catalogue.catalogue(),
             HELP_FILE: json.dumps(help_texts(), indent=1, ensure_ascii=False,
                                   sort_keys=True) + "\n",
             registry.RELEASES_FILE: registry.release_index_text()}
    if args.write:
        for target, text in pages.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        print("wrote " + ", ".join(str(target) for target in pages))
        return EXIT_OK
    stale = {target: why for target, text in pages.items()
             if (why := _stale(target, text)) is not None}
    for target, why in stale.items():
        print(f"{target} is stale (run python -m pipelines.cli.reference --write):\n{why}",
              file=sys.stderr)
    if stale:
        return 1
    print("up to date: " + ", ".join(str(target) for target in pages))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
