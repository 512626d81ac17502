"""The command line of a dataset, generated from its spec's options dataclass.

``build_parser(spec)`` makes the argparse parser (every ``--dash-name`` also answers to
``--dash_name``, and errors raise ``UsageError``); ``options_from(spec, namespace)`` turns the
parsed values into the frozen options dataclass the pipeline receives. Nothing is stashed on
the namespace: what a run computes from its options goes into the spec's ``Plan``.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
from typing import Any

from pipelines.cli.options import add_option, add_underscore_aliases
from transforms.core.options import RELEASE_GROUP, SAME, dash_name, option_fields
from transforms.core.spec import DatasetSpec


def _help(spec: DatasetSpec, text: str) -> str:
    return (text.replace("{dataset}", spec.output_label or spec.name)
            .replace("{version}", spec.version))


def cli_default(spec: DatasetSpec, field: dataclasses.Field, info: Any) -> Any:
    """The parser's default of an option: ``--version`` defaults to the spec's version, a
    repeatable option to None (argparse appends to a given default), else the field's."""
    if info.cli_default is not SAME:
        return info.cli_default
    if field.name == "version" and field.default is None:
        return spec.version
    if info.repeat:
        return None
    return field.default


def build_parser(spec: DatasetSpec) -> argparse.ArgumentParser:
    """The argparse parser of ``spec``'s options."""
    parser = argparse.ArgumentParser(prog=spec.command, description=spec.description)
    groups: dict[str, Any] = {}
    for field, info in option_fields(spec.options):
        target = parser
        if info.group and info.group != RELEASE_GROUP:
            target = groups.get(info.group) or groups.setdefault(
                info.group, parser.add_argument_group(info.group))
        name = info.name or dash_name(field.name)
        add_option(target, name, info, cli_default(spec, field, info), _help(spec, info.help),
                   dest=field.name)
    return add_underscore_aliases(parser)


def options_from(spec: DatasetSpec, namespace: argparse.Namespace) -> Any:
    """The spec's frozen options from a parsed namespace (repeated options as tuples)."""
    values = {}
    for field in dataclasses.fields(spec.options):
        value = getattr(namespace, field.name)
        if isinstance(value, list):
            value = tuple(value)
        values[field.name] = value
    return spec.options(**values)


def api_signature(spec: DatasetSpec) -> inspect.Signature:
    """``build_<dataset>(*, input=..., output=..., **beam_options)``: keyword-only
    parameters with the options' types and command-line defaults (what an IDE or
    ``help()`` shows for the ``pipelines.api`` function)."""
    hints = _type_hints(spec.options)
    parameters = [
        inspect.Parameter(field.name, inspect.Parameter.KEYWORD_ONLY,
                          default=cli_default(spec, field, info),
                          annotation=hints.get(field.name, Any))
        for field, info in option_fields(spec.options)]
    parameters.append(inspect.Parameter("beam_options", inspect.Parameter.VAR_KEYWORD,
                                        annotation=Any))
    return inspect.Signature(parameters, return_annotation=dict[str, Any])


def _type_hints(options: type) -> dict[str, Any]:
    import typing

    try:
        return typing.get_type_hints(options)
    except Exception:  # noqa: BLE001 - an unresolvable hint shows as Any
        return {}
