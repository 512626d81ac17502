"""The sections every data card ends with, from the release itself: fields, an example row,
how it was built, leakage between splits, limitations, how to load it, licence and citation.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import pyarrow.parquet as pq

from transforms.core.files import FileSystems
from transforms.core.paths import recorded_value
from transforms.release.card import CardInfo, md_text
from transforms.release.manifest import COMMAND_LINE
from transforms.release.storage import RAW
from transforms.release.tables import Table

MAX_TEXT = 240
MAX_ITEMS = 4


def short_type(data_type: Any) -> str:
    """An Arrow type as a card shows it: ``list<element: string>`` as ``list<string>``."""
    return re.sub(r"(?:element|item): ", "", str(data_type)).replace(" not null", "")


def field_table(tables: list[Table], docs: dict[str, str]) -> list[str]:
    """One Markdown table of columns (type, meaning) per config; ``docs`` may describe a
    column of one config only as ``<config>.<column>``."""
    lines = ["## Fields", ""]
    seen: set[str] = set()
    for table in tables:
        if table.config in seen:
            continue
        seen.add(table.config)
        lines += [f"Config `{table.config}` (`{table.pattern}`):", "",
                  "| column | type | meaning |", "|---|---|---|"]
        lines += [f"| `{f.name}` | `{short_type(f.type)}` | "
                  f"{md_text(docs.get(f'{table.config}.{f.name}', docs.get(f.name, '')))} |"
                  for f in table.schema]
        lines.append("")
    return lines


def clipped(value: Any) -> Any:
    """A value shortened for display: long strings cut, long lists cut, with a marker."""
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else f"{value[:MAX_TEXT]}… [{len(value)} chars]"
    if isinstance(value, list):
        items = [clipped(v) for v in value[:MAX_ITEMS]]
        return items + [f"… [{len(value)} items]"] if len(value) > MAX_ITEMS else items
    if isinstance(value, dict):
        return {k: clipped(v) for k, v in value.items()}
    return value


def first_row(version_dir: str, table: Table) -> dict[str, Any] | None:
    """The first row of a table (first file, first row group), or None."""
    for path in table.files:
        with FileSystems.open(FileSystems.join(version_dir, *path.split("/")),
                              compression_type=RAW) as handle:
            parquet = pq.ParquetFile(handle)
            if parquet.metadata.num_row_groups and parquet.metadata.row_group(0).num_rows:
                return parquet.read_row_group(0).slice(0, 1).to_pylist()[0]
    return None


def example_section(version_dir: str, tables: list[Table]) -> list[str]:
    """One real row of the main table, as JSON, long values shortened."""
    main = [t for t in tables if t.config == tables[0].config and t.rows] if tables else []
    row = first_row(version_dir, main[0]) if main else None
    if row is None:
        return []
    text = json.dumps(clipped(row), indent=2, ensure_ascii=False, default=str)
    fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return ["## Example", "",
            f"The first row of `{main[0].directory}` (strings over {MAX_TEXT} characters and "
            f"lists over {MAX_ITEMS} items shortened):", "",
            f"{fence}json", text, fence, ""]


def rerun_command(manifest: dict[str, Any]) -> str | None:
    """The shell command that builds the release again, as the manifest records it
    (``options["command_line"]``, paths by ``recorded_path``), quoted by ``shlex``; None for
    a release built before manifests recorded it."""
    argv = (manifest.get("options") or {}).get(COMMAND_LINE)
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        return None
    return shlex.join(recorded_value(argv, None))


def fenced(text: str, language: str = "") -> list[str]:
    """``text`` as a Markdown code block whose fence is longer than any run of backticks
    in it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + language, text, fence]


def build_section(manifest: dict[str, Any]) -> list[str]:
    """The command that builds the release again (``rerun_command``), or, for a release
    built before manifests recorded it, the entry point and every option by the name the
    manifest records it under."""
    options = dict(recorded_value(manifest.get("options", {}), None))
    command = options.pop("command", "") or "python -m pipelines.<pipeline>"
    rerun = rerun_command(manifest)
    if rerun is not None:
        lines = ["## How it was built", "", *fenced(rerun, "sh"), "",
                 "Run it from the directory the job ran from: relative paths are as given, "
                 "`<local>/...` stands for a local path outside that directory (put yours), "
                 "and options left at their defaults are not shown. `dataset_info.json` "
                 "records the value of every option, with the code version.", ""]
    else:
        lines = ["## How it was built", "",
                 f"`{command}` with these options, by the names "
                 "`dataset_info.json` records them under (relative paths as given, from the "
                 "directory the job ran from; `<local>/...` stands for a local path outside "
                 "it):", "", "| option | value |", "|---|---|"]
        for name, value in sorted(options.items()):
            shown = json.dumps(value, ensure_ascii=False, sort_keys=True)
            lines.append(f"| `{name}` | {md_text(shown)} |")
        lines.append("")
    code = manifest.get("code", {})
    lines += [f"Code: {md_text(code.get('package', ''))} {md_text(code.get('version', ''))}"
              f" (commit {md_text(code.get('git_commit') or 'n/a')}); built "
              f"{md_text(manifest.get('created', ''))}.", ""]
    return lines


def leakage_section(stats: dict[str, Any]) -> list[str]:
    """What ``stats["leakage"]`` found: the same question or document in two splits."""
    leakage = stats.get("leakage")
    if not leakage:
        return []
    lines = ["## Leakage between splits", "",
             "Splits are assigned by a stable hash of a group key; this checks what the key "
             "does not group. Questions are compared after normalization (case, width, "
             "punctuation, spaces).", ""]
    for kind in ("questions", "documents"):
        found = leakage.get(kind)
        if not found:
            continue
        pairs = ", ".join(f"{pair} {n}" for pair, n in sorted(found.get("pairs", {}).items()))
        lines.append(f"- {kind} (`{found['column']}`) in two or more splits: {found['count']}"
                     + (f" ({found['rows']} rows; {pairs})" if found["count"] else ""))
        for example in found.get("examples", [])[:3]:
            value = example.get("question", example.get("document", ""))
            where = ", ".join(f"{split} {n}" for split, n in example.get("splits", {}).items())
            lines.append(f"  - {md_text(value)} ({where})")
    return [*lines, "",
            "Check against external evaluation sets with `python -m pipelines.release "
            "leakage . --against FILE`.", ""]


def loading_section(tables: list[Table]) -> list[str]:
    """How to load the release with ``datasets``, pyarrow and DuckDB."""
    main = tables[0] if tables else None
    configs = sorted({t.config for t in tables if t.rows})
    empty = [t for t in tables if not t.rows]
    lines = ["## Loading", "", "```python", "from datasets import load_dataset",
             f"data = load_dataset('.')                 # config {main.config if main else '-'}"]
    lines += [f"other = load_dataset('.', '{name}')" for name in configs
              if main and name != main.config][:3]
    if main:
        lines += ["", "import pyarrow.dataset as ds",
                  f"table = ds.dataset('{main.directory}', format='parquet').to_table()",
                  "", "import duckdb",
                  f"duckdb.sql(\"SELECT count(*) FROM '{main.pattern}'\")"]
    lines += ["```", ""]
    if empty:
        lines += ["Splits without rows are not listed for `datasets` (it cannot build an empty "
                  "split); their zero-row Parquet files hold the schema for pyarrow and DuckDB: "
                  + ", ".join(f"`{t.directory}`" for t in empty) + ".", ""]
    if any(t.split == "validation" for t in tables):
        lines += ["`dev/` is the `validation` split in `datasets`.", ""]
    lines += ["Check the files against the manifest first: `python -m pipelines.release "
              "verify .`, or without this toolkit `sha256sum -c SHA256SUMS` in this "
              "directory.", ""]
    return lines


def browse_section(manifest: dict[str, Any]) -> list[str]:
    """How to open the release browser on this release."""
    site = f"site/{manifest['dataset']}/{manifest['version']}"
    return ["## Browse", "",
            "Look at the examples before you use them: `python -m pipelines.release browse "
            "DIR` (DIR: this release's directory) writes a static site under the directory "
            f"you run it from (`{md_text(site)}/index.html`: the funnel of what was "
            "dropped and why, length histograms against the paper, every example with its "
            "answer highlighted, the rejected records by reason); open it in a browser, no "
            "server needed, or add `--serve` to serve it on 127.0.0.1.", ""]


def closing_sections(info: CardInfo) -> list[str]:
    """Limitations, licence and citation."""
    fence = "```"
    return ["## Limitations and known biases", "",
            *[f"- {item}" for item in info.limitations], "",
            "## Licence", "", info.license_text, "",
            "## Citation", "", f"{fence}bibtex", info.citation.strip(), fence, ""]


def shared_sections(version_dir: str, manifest: dict[str, Any], stats: dict[str, Any],
                    info: CardInfo, tables: list[Table],
                    field_docs: dict[str, str] | None = None) -> str:
    """Everything a card has after the dataset's own body; columns are described by the
    manifest's schema, then by ``field_docs``."""
    docs = {**(field_docs or {}), **{f["name"]: f["description"]
                                     for f in manifest.get("schema", []) if f.get("description")}}
    return "\n".join([*field_table(tables, docs), *example_section(version_dir, tables),
                      *build_section(manifest), *leakage_section(stats),
                      *loading_section(tables), *browse_section(manifest),
                      *closing_sections(info)])
