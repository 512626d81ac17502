"""Typed pipeline options: one frozen dataclass per dataset, one field per option.

A field declared with ``option(...)`` carries everything the command line, the Python API
and the Dataflow Flex Template metadata need (help, value parser, choices, group), so the
three are generated from the dataclass (``pipelines.cli.spec_parser``) and cannot drift:

    @dataclass(frozen=True)
    class ToyOptions(ReleaseOptions):
        input: tuple[str, ...] = option((), "glob of input files", repeat=True)
        min_words: int = option(3, "shortest kept question", parse=positive_int)

Groups of options shared by several datasets (``ReleaseOptions`` here; query logs, linking,
request limits next to the code that uses them) are dataclasses too, combined by inheritance.
The value parsers (``positive_int`` ...) raise ``argparse.ArgumentTypeError`` so argparse
prints their message; they are pure and usable without a parser.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from filters.text.splits import parse_split_ratios

CLI = "cli"  # the dataclass field metadata key of an option's declaration


class _Same:
    """``cli_default`` when the parser's default is the field's default."""

    def __repr__(self) -> str:
        return "SAME"


SAME: Any = _Same()


@dataclass(frozen=True)
class OptionInfo:
    """How one option appears on the command line (``--dash-name``) and in its help."""

    help: str
    parse: Callable[[str], Any] | None = None  # argparse ``type``
    choices: tuple[Any, ...] | None = None
    flag: bool = False  # ``--name`` or ``--name=true|false``
    repeat: bool = False  # ``action="append"``: a tuple of every value given
    metavar: str | None = None
    group: str | None = None  # the argument group's title in ``--help``
    cli_default: Any = SAME  # the parser's default, when it differs from the field's
    name: str | None = None  # ``--from`` for a field whose name is not the option's
    rows: bool = True  # changing it changes published rows: a refresh refuses a new value


def option(default: Any, help: str, *, parse: Callable[[str], Any] | None = None,  # noqa: A002
           choices: tuple[Any, ...] | None = None, flag: bool = False, repeat: bool = False,
           metavar: str | None = None, group: str | None = None,
           cli_default: Any = SAME, name: str | None = None, rows: bool = True) -> Any:
    """A dataclass field that is also a command-line option (see the module docstring);
    ``name`` is its command-line name when that is not ``--<field-name>`` (``--from`` for
    ``from_year``: ``from`` is a Python keyword). ``rows=False`` declares an option that
    never changes the content of a published row (where the inputs are, rates, limits,
    shard sizes): a refresh (``--previous``) carries rows across a change of it, and refuses
    a change of any other option unless ``--recompute-all``."""
    info = OptionInfo(help, parse, tuple(choices) if choices else None, flag, repeat,
                      metavar, group, cli_default, name, rows)
    return dataclasses.field(default=default, metadata={CLI: info})


def option_fields(options: type) -> Iterator[tuple[dataclasses.Field, OptionInfo]]:
    """The fields of an options dataclass that are options, in declaration order (fields of
    base classes first, as ``dataclasses.fields`` gives them)."""
    for field in dataclasses.fields(options):
        info = field.metadata.get(CLI)
        if info is not None:
            yield field, info


def dash_name(field_name: str) -> str:
    """``split_ratios`` -> ``--split-ratios``."""
    return "--" + field_name.replace("_", "-")


def row_options(options: type) -> list[str]:
    """The field names of the options that change row content (declared without
    ``rows=False``), in declaration order."""
    return [field.name for field, info in option_fields(options) if info.rows]


def recorded(options: Any) -> dict[str, Any]:
    """The options as the manifest records them: every field, by name, in declaration order."""
    return {field.name: getattr(options, field.name) for field in dataclasses.fields(options)}


def parse_bool(value: str | bool) -> bool:
    """``true/false/1/0/yes/no`` (Flex Templates pass every parameter as ``--name=value``)."""
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in ("true", "1", "yes", "y", "on"):
        return True
    if lowered in ("false", "0", "no", "n", "off", ""):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {value!r}")


def split_ratios_option(spec: str) -> tuple[tuple[str, float], ...]:
    """``--split-ratios``: names and normalized ratios, or a usage error."""
    try:
        return parse_split_ratios(spec)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def positive_int(value: str) -> int:
    """A count that must be at least 1 (``--max-rows-per-shard``)."""
    return _bounded_int(value, 1, "at least 1")


def non_negative_int(value: str) -> int:
    """A count that may be 0 but never negative."""
    return _bounded_int(value, 0, "0 or more")


def positive_float(value: str) -> float:
    """A finite number > 0 (``nan`` and ``inf`` are refused)."""
    return _bounded_float(value, lambda x: x > 0, "a finite number > 0")


def non_negative_float(value: str) -> float:
    """A finite number >= 0 (a pause, a wait)."""
    return _bounded_float(value, lambda x: x >= 0, "a finite number >= 0")


def fraction(value: str) -> float:
    """A number in (0, 1] (a similarity threshold)."""
    return _bounded_float(value, lambda x: 0 < x <= 1, "a number in (0, 1]")


def _bounded_float(value: str, accept: Callable[[float], bool], rule: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected {rule}, got {value!r}") from None
    if not math.isfinite(number) or not accept(number):
        raise argparse.ArgumentTypeError(f"expected {rule}, got {value!r}")
    return number


def _bounded_int(value: str, lowest: int, rule: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected an integer {rule}, got {value!r}") from None
    if number < lowest:
        raise argparse.ArgumentTypeError(f"must be {rule}, got {number}")
    return number


def resolve_version(version: str, now: datetime | None = None) -> str:
    """``auto`` -> the UTC launch date ``YYYY.MM.DD`` (the rule for scheduled releases);
    any other value is used as given."""
    if version != "auto":
        return version
    return (now or datetime.now(UTC)).strftime("%Y.%m.%d")


RELEASE_GROUP = "release"


@dataclass(frozen=True)
class ReleaseOptions:
    """Where and how every pipeline publishes: ``--output``, ``--version``, ``--overwrite``,
    ``--skip-existing``, ``--allow-empty``, and what it builds on: ``--previous``,
    ``--recompute-all`` (``transforms.release.refresh``). A spec's options class derives
    from it; the ``--version`` default and the help's dataset name come from the spec."""

    output: str = option("releases", "release root (local or gs://...); the release goes to "
                                     "<output>/{dataset}/<version>/", group=RELEASE_GROUP,
                         rows=False)
    version: str | None = option(None, "dataset version to write (default {version}); 'auto' "
                                       "names it by the UTC launch date, YYYY.MM.DD",
                                 group=RELEASE_GROUP, rows=False)
    overwrite: bool = option(False, "replace an existing release of the same version",
                             flag=True, group=RELEASE_GROUP, rows=False)
    skip_existing: bool = option(False, "when the version is already published, do nothing "
                                        "and exit 0 (for retried scheduled launches)",
                                 flag=True, group=RELEASE_GROUP, rows=False)
    allow_empty: bool = option(False, "publish the release even when the job kept no rows "
                                      "(otherwise an empty result fails with exit code 4 and "
                                      "nothing is published)", flag=True, group=RELEASE_GROUP,
                               rows=False)
    previous: str | None = option(
        None, "build on this earlier release: a version directory, a dataset directory (its "
              "LATEST) or 'auto' (<output>/{dataset}/LATEST when there is one). Rows of "
              "unchanged inputs are carried byte for byte, with no work and no network; only "
              "new inputs are processed", metavar="RELEASE", group=RELEASE_GROUP, rows=False)
    recompute_all: bool = option(False, "with --previous, recompute every row (also when an "
                                        "option that changes rows differs from the previous "
                                        "release's); the manifest still records the lineage",
                                 flag=True, group=RELEASE_GROUP, rows=False)


MIB = 1 << 20


def mib_to_bytes(mib: float) -> int:
    """A size in MiB as whole bytes (at least 1)."""
    return max(1, int(mib * MIB))


def max_decoded_option(default_mib: float | None, what: str, default_text: str = "") -> Any:
    """``--max-decoded-mib``: the largest ``what`` once decompressed (uncompressed files
    count their own size); ``default_text`` describes a default that depends on other
    options (``default_mib`` None, resolved by the spec's plan). A cap on reading never
    changes a row's content (``rows=False``)."""
    shown = default_text or f"{default_mib:g}"
    return option(default_mib,
                  f"largest {what} once decompressed, in MiB (default {shown}); decoding stops "
                  "there and the file is dead-lettered as decoded_too_large, nothing of it "
                  "kept, so memory stays bounded by this cap, never by a compression bomb",
                  parse=positive_float, rows=False)
