"""Keyword arguments as a command line: how ``pipelines.api`` calls a pipeline's parser.

A keyword names an option by its ``dest`` (``split_ratios``, ``from_year``) or by its long
name with underscores (``split_ratios``, ``workers``); keywords no pipeline option takes may
be Beam pipeline options (``runner``, ``direct_num_workers``, ``temp_location``). Values:
``None`` leaves the default; ``True``/``False`` for flags; a list or tuple for a repeatable
option; a dict (or pairs) for a ``name=value,...`` option such as ``split_ratios``; anything
else is passed as its text. An unknown keyword raises ``UsageError`` naming it, with the
closest keyword, before anything runs; bad values are left to the parser (same messages as the
command line).
"""

from __future__ import annotations

import argparse
import difflib
import keyword
import os
from collections.abc import Mapping
from typing import Any

from apache_beam.options.pipeline_options import _CommaSeparatedListAction

from pipelines.cli.beam_options import beam_parser
from pipelines.cli.errors import UsageError

#: options that add to a list each time they are given (``--input``, Beam's ``--experiments``)
REPEATABLE = (argparse._AppendAction, _CommaSeparatedListAction)


def _is_option(action: argparse.Action) -> bool:
    return bool(action.option_strings) and not isinstance(
        action, argparse._HelpAction | argparse._VersionAction)


def _long_option(action: argparse.Action) -> str:
    return next((o for o in action.option_strings if o.startswith("--")),
                action.option_strings[0])


def keyword_name(action: argparse.Action) -> str:
    """The keyword of an option: its long name with underscores, or its ``dest`` when that
    name is a Python keyword (``--from`` is ``from_year``)."""
    name = _long_option(action).lstrip("-").replace("-", "_")
    return action.dest if keyword.iskeyword(name) or not name.isidentifier() else name


def keyword_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Every keyword ``parser`` takes (names and dests of its options) -> its option."""
    names: dict[str, argparse.Action] = {}
    for action in parser._actions:  # argparse lists every option only here
        if not _is_option(action):
            continue
        for option in action.option_strings:
            names.setdefault(option.lstrip("-").replace("-", "_"), action)
        names.setdefault(action.dest, action)
    return names


def keyword_help(parser: argparse.ArgumentParser) -> dict[str, str]:
    """The keywords of ``parser``'s options with their help (and default), in order."""
    described = {}
    for action in parser._actions:
        if _is_option(action) and action.help != argparse.SUPPRESS:
            default = "" if action.default in (None, [], argparse.SUPPRESS) else \
                f" [default: {action.default!r}]"
            described[keyword_name(action)] = f"{action.help or ''}{default}".strip()
    return described


def subcommand_parser(parser: argparse.ArgumentParser, command: str,
                      what: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``command``; ``UsageError`` for an unknown one (``what``
    names the program in the message)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            if command in action.choices:
                return action.choices[command]
            raise UsageError(f"{what}: unknown command {command!r}"
                             f"{_suggestion(command, action.choices)}; choose from "
                             f"{', '.join(action.choices)}")
    raise UsageError(f"{what} takes no command")


def _suggestion(name: str, candidates: Any) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        return ",".join(f"{key}={_text(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        if value and all(isinstance(item, list | tuple) and len(item) == 2 for item in value):
            return ",".join(f"{key}={_text(item)}" for key, item in value)
        raise TypeError
    return str(value)


def _option_argv(name: str, action: argparse.Action, value: Any, what: str) -> list[str]:
    option = _long_option(action)
    if action.nargs == 0:  # store_true, store_false, store_const
        if not isinstance(value, bool):
            raise UsageError(f"{what}: keyword {name} takes True or False, got {value!r}")
        return [option] if value == (action.const is not False) else []
    repeated = isinstance(action, REPEATABLE) or action.nargs in ("+", "*") or \
        isinstance(action.nargs, int)
    if repeated:
        values = [value] if isinstance(value, str | os.PathLike) else list(value)
        if isinstance(action, REPEATABLE):
            return [f"{option}={_text(item)}" for item in values]
        return [option, *(_text(item) for item in values)]
    try:
        return [f"{option}={_text(value)}"]
    except TypeError:
        raise UsageError(f"{what}: keyword {name} takes one value, got {value!r}") from None


def keyword_argv(parser: argparse.ArgumentParser, keywords: Mapping[str, Any], what: str,
                 beam: bool = True) -> list[str]:
    """The command line ``parser`` reads as ``keywords`` (``beam``: keywords the parser does
    not take may be Beam pipeline options). ``what`` names the call in messages
    (``build_nlquad()``)."""
    own = keyword_actions(parser)
    beam_options = keyword_actions(beam_parser()) if beam else {}
    unknown = [name for name in keywords if name not in own and name not in beam_options]
    if unknown:
        known = sorted(set(keyword_help(parser)) | set(beam_options))
        details = ", ".join(f"{name!r}{_suggestion(name, known)}" for name in unknown)
        raise UsageError(f"{what} got unknown keyword(s): {details}")
    argv: list[str] = []
    seen: dict[argparse.Action, str] = {}
    for name, value in keywords.items():
        action = own.get(name) or beam_options[name]
        if action in seen:
            raise UsageError(f"{what}: keywords {seen[action]} and {name} name the same "
                             "option")
        seen[action] = name
        if value is not None:
            argv += _option_argv(name, action, value, what)
    return argv
