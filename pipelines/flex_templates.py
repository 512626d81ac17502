"""Dataflow Flex Template metadata for every pipeline, generated from its own options.

    python -m pipelines.flex_templates --check     # shipped templates/ match the options
    python -m pipelines.flex_templates --write     # regenerate templates/<pipeline>/metadata.json

Each parameter is an option of the pipeline's parser (underscore name, its help text, a
validation regex for choices, numbers and booleans). ``--runner`` and the other Beam options
are supplied by Dataflow itself. A template is what a schedule launches, so its defaults are
those of a scheduled release (``SCHEDULED_DEFAULTS``): ``previous`` is ``auto``, each week
builds on the last published version and carries what did not change (the console
pre-fills it; a launch that passes ``previous`` itself decides).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pipelines.cli import spec_parser
from pipelines.cli.options import parse_bool
from pipelines.cli.parsers import readable_help
from transforms import registry
from transforms.core.spec import DatasetSpec

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"
_NUMBER = {int: r"^-?[0-9]+$", float: r"^-?[0-9]+(\.[0-9]+)?$"}
SCHEDULED_DEFAULTS = {"previous": "auto"}  # a template's defaults that differ from the CLI's


def _regex(action: argparse.Action) -> str | None:
    if action.choices:
        return "^(" + "|".join(str(c) for c in action.choices) + ")$"
    if action.type is parse_bool:
        return "^(true|false)$"
    return _NUMBER.get(action.type)


def metadata(name: str) -> dict[str, Any]:
    """The Flex Template metadata of one registered pipeline (``build_nq``)."""
    return metadata_of(registry.by_module(name))


def metadata_of(spec: DatasetSpec) -> dict[str, Any]:
    """The Flex Template metadata of a spec, generated from its options."""
    parameters = []
    for action in spec_parser.build_parser(spec)._actions:
        if not action.option_strings or action.dest == "help":
            continue
        long_name = max(action.option_strings, key=len).lstrip("-").replace("-", "_")
        parameter = {
            "name": long_name,
            "label": long_name.replace("_", " ").capitalize(),
            "helpText": " ".join((action.help or "").split()),
            "isOptional": True,
        }
        regex = _regex(action)
        if regex:
            parameter["regexes"] = [regex]
        if long_name in SCHEDULED_DEFAULTS:
            parameter["defaultValue"] = SCHEDULED_DEFAULTS[long_name]
        parameters.append(parameter)
    return {"name": spec.module, "description": spec.about[:1].upper() + spec.about[1:],
            "streaming": False, "parameters": parameters}


def pipelines() -> list[str]:
    """The entry points with a template: every registered spec's module."""
    return [spec.module for spec in registry.specs()]


def write_all(directory: Path = TEMPLATES_DIR) -> None:
    for name in pipelines():
        path = directory / name / "metadata.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(metadata(name), indent=2, ensure_ascii=False) + "\n",
                        encoding="utf-8")


def stale(directory: Path = TEMPLATES_DIR) -> list[str]:
    """Pipelines whose shipped metadata differs from their options."""
    out = []
    for name in pipelines():
        path = directory / name / "metadata.json"
        if not path.exists() or json.loads(path.read_text(encoding="utf-8")) != metadata(name):
            out.append(name)
    return out


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m pipelines.flex_templates``."""
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.flex_templates",
        description="Write or check the Dataflow Flex Template metadata (templates/) "
                    "generated from every pipeline's options.")
    parser.add_argument("--write", action="store_true", help="regenerate templates/")
    parser.add_argument("--check", action="store_true", help="fail when templates/ is stale")
    return readable_help(parser)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.write:
        write_all()
    outdated = stale()
    if outdated:
        print(f"stale Flex Template metadata: {', '.join(outdated)} "
              "(run python -m pipelines.flex_templates --write)", file=sys.stderr)
        return 1
    print(f"Flex Template metadata up to date in {TEMPLATES_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
