"""The command line that builds a release again, made from the parser that read it.

A manifest records every option by its ``dest`` (``from_year``), which is not always its
flag (``--from``), and a card that printed ``--from-year`` or ``--beam-args`` could not be
copied. ``rerun_argv`` writes each option whose value differs from its default in the
spelling its parser documents, in a form the same parser reads back to the same value, then
the Beam arguments exactly as they were given. The manifest records the result as
``options["command_line"]`` (``transforms.release.manifest.recorded_options``), where its
paths are made ``recorded_path`` like every other option; the card shows it shell-quoted.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from typing import Any

#: options of how a run is shown (``--progress``, ``--verbose``): never part of the command
SHOWN_ONLY = ("progress", "verbose")


def long_flag(action: argparse.Action) -> str:
    """The spelling ``--help`` shows for an option: its first long option string."""
    return next((o for o in action.option_strings if o.startswith("--")),
                action.option_strings[0])


def _same(value: Any, default: Any) -> bool:
    return json.dumps(value, sort_keys=True, default=str) == json.dumps(
        default, sort_keys=True, default=str)


def _default(action: argparse.Action) -> Any:
    """The value argparse gives an option that is not on the command line (a string
    default goes through the option's ``type``, as argparse does)."""
    default = action.default
    if isinstance(default, str) and callable(action.type):
        try:
            return action.type(default)
        except (argparse.ArgumentTypeError, TypeError, ValueError):
            return default
    return default


def value_text(value: Any) -> str:
    """One value as the option's parser reads it: ``true``/``false``, ``k=v,k=v`` for a
    mapping or pairs (``--split-ratios``, ``--ways``), else its text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.12g}"  # 0.7, not the 0.7000000000000001 a ratio's division leaves
    if isinstance(value, Mapping):
        value = list(value.items())
    if _pairs(value):
        return ",".join(f"{key}={value_text(item)}" for key, item in value)
    return str(value)


def _pairs(value: Any) -> bool:
    """A non-empty sequence of ``(name, value)`` pairs (parsed ``--split-ratios``)."""
    return (isinstance(value, list | tuple) and bool(value)
            and all(isinstance(item, list | tuple) and len(item) == 2 for item in value))


def _pair(flag: str, text: str) -> list[str]:
    """``--name value``, or ``--name=value`` when the value could be read as an option."""
    return [f"{flag}={text}"] if not text or text.startswith("-") else [flag, text]


def option_argv(action: argparse.Action, value: Any) -> list[str]:
    """The arguments that give ``action`` the value ``value`` (none for its default)."""
    if value is None or _same(value, _default(action)):
        return []
    flag = long_flag(action)
    if action.nargs == 0:  # store_true / store_false / store_const
        return [flag] if _same(value, action.const) else []
    if action.const is True and action.nargs == "?":  # --flag or --flag=true|false
        return [flag] if value is True else [f"{flag}={value_text(value)}"]
    many = isinstance(value, list | tuple) and not _pairs(value)
    if isinstance(action, argparse._AppendAction | argparse._ExtendAction):
        items = value if many else [value]
        return [token for item in items for token in _pair(flag, value_text(item))]
    if many and action.nargs in ("+", "*") or isinstance(action.nargs, int):
        return [flag, *(value_text(item) for item in value)]
    return _pair(flag, value_text(value))


def rerun_argv(parser: argparse.ArgumentParser, values: Mapping[str, Any],
               beam_args: Sequence[str], command: str) -> list[str]:
    """``command`` (``python -m pipelines.build_nq``, a subcommand included) split into
    words, then every option of ``parser`` whose value in ``values`` (by ``dest``) is not
    its default, in declaration order, then ``beam_args`` as given."""
    argv = command.split()
    for action in parser._actions:  # argparse lists every option only here
        if (not action.option_strings or action.dest in SHOWN_ONLY
                or action.dest not in values
                or isinstance(action, argparse._HelpAction | argparse._VersionAction)):
            continue
        argv += option_argv(action, values[action.dest])
    return [*argv, *beam_args]


def subcommand(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``name`` of ``parser`` (``KeyError`` if it has none)."""
    for action in parser._actions:  # argparse keeps the subcommands' parsers only here
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            return action.choices[name]
    raise KeyError(name)
