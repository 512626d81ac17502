"""The dataset catalogue, generated from each dataset's declaration (``DatasetSpec``), as TFDS
generates its catalogue from each builder's info.

``python -m pipelines.cli.reference --write`` writes it to ``docs/reference/datasets.md``
with the CLI reference, and ``--check`` fails when it is stale: what the page says of a
release kind (its description, columns and their docs, its evaluation task, the counters of
its ``stats.json``) is what the code declares.
"""

from __future__ import annotations

from pathlib import Path

from pipelines.cli.markdown import cell
from transforms import registry
from transforms.core.spec import DatasetSpec, ReleaseKind

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "docs" / "reference" / "datasets.md"


def _code(value: object) -> str:
    return f"`{value}`"


def kind_section(kind: ReleaseKind, built_by: str) -> list[str]:
    """One release kind: what it is, how it is made, its columns."""
    lines = [f"### `{kind.dataset}`", "", cell(kind.description), "",
             f"- written by {built_by}",
             f"- evaluated by `qa-evaluate {kind.evaluator}`" if kind.evaluator
             else "- no evaluation task",
             f"- browsed with the `{kind.renderer}` renderer (`qa-release browse`)", ""]
    if kind.schema is None:
        return [*lines, "Its tables are listed in its card.", ""]
    lines += [f"Columns of its main table ({len(kind.schema)}):", "",
              "| column | type | meaning |", "|---|---|---|"]
    lines += [f"| `{f.name}` | {cell(_code(f.type))} | {cell(kind.field_docs.get(f.name, ''))} |"
              for f in kind.schema]
    return [*lines, ""]


def spec_section(spec: DatasetSpec) -> list[str]:
    """One dataset: its command, version, refresh unit, release kinds and counters."""
    lines = [f"## {spec.name}", "", cell(spec.description), "",
             f"- command: `qa-build {spec.name}` (`{spec.command}`)",
             f"- default version: `{spec.version}`",
             "- refresh (`--previous`): "
             + (cell(spec.refresh.unit) if spec.refresh else "not supported (exit 2)"), ""]
    for kind in spec.releases:
        lines += kind_section(kind, f"`qa-build {spec.name}`")
    for kind in spec.extra_releases:
        lines += kind_section(kind, "`qa-annotate import`")
    counters = sorted(str(c) for c in (*spec.counters.counters, *spec.counters.families))
    lines += [f"Counters of `stats.json` ({len(counters)}), as `counts.<stage>.<name>`:", "",
              ", ".join(f"`{name}`" for name in counters), ""]
    return lines


def catalogue() -> str:
    """The whole catalogue, as Markdown."""
    lines = ["# Dataset catalogue", "",
             "Generated from each dataset's `DatasetSpec` by `python -m "
             "pipelines.cli.reference --write`; `--check` (run by the tests) fails when this "
             "page is stale. The [dataset pages](../datasets/index.md) explain what each "
             "paper does and how we follow it; this page lists what the code declares.", ""]
    for name in registry.names():
        lines += spec_section(registry.spec(name))
    return "\n".join(lines).rstrip("\n") + "\n"
