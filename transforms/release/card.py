"""Pieces every data card shares; each dataset's card body lives with its stages.

A dataset declares its card as a ``DatasetCard``: ``CardInfo`` (what the Hub's YAML front
matter, the Croissant metadata and the shared card sections need) and a ``body`` function of
the manifest and stats. ``publish`` puts the front matter, the body and the shared sections
together (``transforms.release.card_sections``).

``CardInfo.annotations_creators`` is who made the release's annotations, in the Hub's
vocabulary (``huggingface_hub.DatasetCardData``; ``datasets``' ``creators.json``): every
release kind declares it, and a release from simulated votes says ``machine-generated``
(``transforms.release.simulated``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# The Hub's ``annotations_creators`` values
CROWDSOURCED = "crowdsourced"  # crowd workers judged the examples (our annotation protocols)
EXPERT_GENERATED = "expert-generated"
FOUND_IN_SOURCE = "found"  # the annotations were already in the source (NLQuAD)
MACHINE_GENERATED = "machine-generated"  # a program made them (simulated votes, a lexicon)
NO_ANNOTATION = "no-annotation"  # nothing is annotated (built, not yet annotated)
OTHER = "other"
ANNOTATIONS_CREATORS = (FOUND_IN_SOURCE, CROWDSOURCED, EXPERT_GENERATED,
                        MACHINE_GENERATED, NO_ANNOTATION, OTHER)

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def md_text(value: Any) -> str:
    """``value`` as literal Markdown text: special characters backslash-escaped, HTML
    brackets included, line breaks folded, so dataset text or an option cannot format,
    link or inject markup."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(value).split()))


@dataclass(frozen=True)
class CardInfo:
    """What a dataset's card, its YAML front matter and its Croissant metadata say about it."""

    pretty_name: str
    summary: str
    license: str
    license_text: str
    language: tuple[str, ...]
    task_categories: tuple[str, ...]
    task_ids: tuple[str, ...]
    source_datasets: tuple[str, ...]
    citation: str
    limitations: tuple[str, ...]
    collection: str
    preprocessing: str
    annotations_creators: tuple[str, ...]  # the Hub's vocabulary (ANNOTATIONS_CREATORS)
    annotation: str = ""

    def __post_init__(self) -> None:
        unknown = [v for v in self.annotations_creators if v not in ANNOTATIONS_CREATORS]
        if not self.annotations_creators or unknown:
            raise ValueError(f"annotations_creators {list(self.annotations_creators)}: give "
                             f"one or more of {', '.join(ANNOTATIONS_CREATORS)}")


@dataclass(frozen=True)
class DatasetCard:
    """``make_card`` for ``publish``: the dataset's ``CardInfo`` and its body sections;
    ``adapt(info, manifest)``, when given, is what one release says of itself when that
    depends on its manifest (``info_for``)."""

    info: CardInfo
    body: Callable[[dict[str, Any], dict[str, Any]], str]
    adapt: Callable[[CardInfo, dict[str, Any]], CardInfo] | None = None

    def info_for(self, manifest: dict[str, Any]) -> CardInfo:
        """The ``CardInfo`` of the release with this manifest."""
        return self.info if self.adapt is None else self.adapt(self.info, manifest)

    def __call__(self, manifest: dict[str, Any], stats: dict[str, Any]) -> str:
        return self.body(manifest, stats)


def baseline_table(stats: dict[str, Any]) -> list[str]:
    """Markdown lines of ``stats["baselines"]``: ``{"split", "n", "metrics", "rows": [...]}``."""
    table = stats.get("baselines")
    if not table:
        return []
    metrics = table["metrics"]
    if not table["rows"]:
        return ["## Untrained baselines", "", table.get("note", ""), ""]
    lines = ["## Untrained baselines",
             "",
             (f"On all {table['n']} questions. " if table["split"] == "all" else
              f"On the {table['split']} split ({table['n']} questions). ") + table.get("note", ""),
             "",
             "| baseline | " + " | ".join(metrics) + " |",
             "|---|" + "---|" * len(metrics)]
    for row in table["rows"]:
        lines.append(f"| {row['name']} | " + " | ".join(
            f"{row[m]:.3f}" if isinstance(row.get(m), float) else str(row.get(m, "-"))
            for m in metrics) + " |")
    return [*lines, ""]
