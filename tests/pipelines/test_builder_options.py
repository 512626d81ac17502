"""Every builder keeps every option it has: names, spellings, defaults, choices, types.

The snapshot (``tests/fixtures/builder_options.json``) was taken from the hand-written parsers
before the datasets were declared as specs (issue 24); the one change since is ReQA's
``--no-verify``, which became a flag that also takes ``=true|false`` (as Flex Templates pass
it). Regenerate with ``python -m tests.pipelines.test_builder_options`` only when an option
is added or changed on purpose, and say so in the changelog. ``strings`` are the spellings the
parser accepts (``--help`` lists only the first: the underscore ones are aliases).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

from transforms import registry

SNAPSHOT = Path(__file__).resolve().parents[1] / "fixtures" / "builder_options.json"
REPO = str(Path(__file__).resolve().parents[2])


def _default(value: object) -> str:
    """The default's repr, with this checkout's path written as ``<repo>`` (CI clones elsewhere)."""
    return repr(value).replace(REPO, "<repo>")


def options_of(module_name: str) -> dict[str, dict]:
    """The options of ``pipelines.<module_name>``'s parser, by long name."""
    parser = importlib.import_module(f"pipelines.{module_name}").build_parser()
    rows = {}
    for action in parser._actions:
        if not action.option_strings or action.dest == "help":
            continue
        name = max((s for s in action.option_strings if "_" not in s[2:] or "-" not in s),
                   key=len)
        accepted = [s for s, known in parser._option_string_actions.items() if known is action]
        rows[name] = {"strings": sorted(accepted), "dest": action.dest,
                      "default": _default(action.default),
                      "choices": list(action.choices) if action.choices else None,
                      "nargs": action.nargs, "const": repr(action.const),
                      "type": getattr(action.type, "__name__", repr(action.type)),
                      "action": type(action).__name__}
    return rows


@pytest.mark.parametrize("name", registry.names())
def test_every_option_is_kept(name):
    module = registry.spec(name).module
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))[module]
    assert options_of(module) == expected


if __name__ == "__main__":
    snapshot = {registry.spec(name).module: options_of(registry.spec(name).module)
                for name in registry.names()}
    SNAPSHOT.write_text(json.dumps(snapshot, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    sys.exit(0)
