"""Checks every dataset card passes (shared by the tests/transforms/*/test_card.py files)."""

from __future__ import annotations

import re
from typing import Any

import pyarrow as pa

from transforms.release import CardInfo, DatasetCard
from transforms.release.features import class_labels

# The Hub's task taxonomy (huggingface.js packages/tasks/src/pipelines.ts): the categories and
# sub-task ids our cards use must be among these.
HUB_TASKS = {
    "question-answering": {"extractive-qa", "open-domain-qa", "closed-domain-qa"},
    "text-classification": {"multi-class-classification", "natural-language-inference",
                            "fact-checking", "topic-classification"},
    "text-retrieval": {"document-retrieval", "utterance-retrieval",
                       "entity-linking-retrieval", "fact-checking-retrieval"},
    "other": set(),
}
HUB_LICENSES = {"other", "cc-by-sa-3.0", "cc-by-sa-4.0", "cc-by-4.0", "cc-by-nc-4.0"}

# A version string, option and dataset text full of Markdown and HTML.
HOSTILE = "1.0.0 <script>x</script> [link](http://evil) *bold* `code` # h | pipe"
SECRET_PATH = "/home/someone/secret/data"


def bibtex_entries(text: str) -> list[dict[str, str]]:
    """Entries of a BibTeX string as {"type", "key", <field>: value}; raises on bad syntax."""
    entries = []
    for chunk in re.split(r"\n\s*\n(?=@)", text.strip()):
        match = re.fullmatch(r"@(\w+)\{([\w:-]+),\n(.*)\n\}", chunk.strip(), re.S)
        assert match, f"not a BibTeX entry: {chunk[:80]!r}"
        body = match.group(3)
        assert body.count("{") == body.count("}"), "unbalanced braces"
        fields = dict(re.findall(r"^\s{4}(\w+) = (\"[^\"]*\"|\w+),?$", body, re.M | re.S))
        named = re.findall(r"^\s{4}(\w+) = ", body, re.M)
        assert set(named) == set(fields), f"a field is not a quoted value: {named}"
        entries.append({"type": match.group(1), "key": match.group(2),
                        **{k: v.strip('"') for k, v in fields.items()}})
    return entries


def check_info(info: CardInfo) -> None:
    """The CardInfo a release's YAML front matter and Croissant metadata are built from."""
    assert info.pretty_name and info.summary and info.license_text
    assert info.collection and info.preprocessing and info.limitations
    assert info.license in HUB_LICENSES
    assert all(re.fullmatch(r"[a-z]{2}", lang) for lang in info.language)
    assert info.task_categories and set(info.task_categories) <= set(HUB_TASKS)
    allowed = set().union(*(HUB_TASKS[c] for c in info.task_categories))
    assert set(info.task_ids) <= allowed, info.task_ids
    assert all(s == "original" or s.startswith("extended|") for s in info.source_datasets)
    for entry in bibtex_entries(info.citation):
        assert {"title", "author", "year"} <= set(entry), entry["key"]
    assert "## " not in info.summary, "the summary is one paragraph"


def column_type(schema: pa.Schema, dotted: str) -> pa.DataType:
    """The type of ``a.b`` in ``schema``, through structs and lists of them."""
    first, *rest = dotted.split(".")
    kind = schema.field(first).type
    for name in rest:
        while pa.types.is_list(kind):
            kind = kind.value_type
        kind = kind.field(name).type
    while pa.types.is_list(kind):
        kind = kind.value_type
    return kind


def check_class_labels(schema: pa.Schema) -> None:
    """Class labels name integer columns of the release schema only."""
    for column, names in class_labels(schema).items():
        assert pa.types.is_integer(column_type(schema, column)), column
        assert names and len(set(names)) == len(names)


def check_card_info(info: CardInfo, schema: pa.Schema | None = None) -> list[dict[str, str]]:
    """``check_info``, and ``check_class_labels`` against ``schema`` when given; returns the
    citation's BibTeX entries."""
    check_info(info)
    if schema is not None:
        check_class_labels(schema)
    return bibtex_entries(info.citation)


def check_body(card: DatasetCard, manifest: dict[str, Any], stats: dict[str, Any]) -> str:
    """The body escapes the version, leaks no path and leaves the shared sections to publish."""
    body = card(manifest, stats)
    assert body == card.body(manifest, stats)
    assert body.startswith("# ")
    heading = body.splitlines()[0]
    assert "<script>" not in heading and "](http" not in heading and "`code`" not in heading
    assert r"\<script\>" in heading
    assert SECRET_PATH not in body and "/home/" not in body
    for shared in ("## Loading", "## License", "## Licence", "## Citation", "load_dataset",
                   "pyarrow.dataset"):
        assert shared not in body, shared
    return body
