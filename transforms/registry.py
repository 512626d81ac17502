"""Every dataset the toolkit builds: one ``DatasetSpec`` each, listed once.

Console scripts (``qa-build``), Dataflow Flex Templates, ``pipelines.api``, the release
browser and ``python -m pipelines.evaluate`` enumerate datasets only through this registry,
so a new dataset is one ``transforms/<dataset>/spec.py`` plus one line here
(``CONTRIBUTING.md``, "Add a dataset"). Specs are imported when first asked for, so listing
names does not import Beam stages.

What ``release browse`` and ``evaluate`` ask of every spec (each release kind's renderer and
evaluator) is also stored in ``releases.json`` next to this module (``stored_releases``), so
those commands need not import a spec module (each imports Beam, 1.4 s of CPU):
``python -m pipelines.cli.reference --write`` writes it from the specs (``release_index``)
and ``--check`` (and the tests) fails when it differs from them.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from transforms.core.spec import GENERIC_RENDERER, DatasetSpec, ReleaseKind

#: ``qa-build`` name -> module holding ``SPEC``, in the order help and docs list them
SPEC_MODULES: dict[str, str] = {
    "nlquad": "transforms.nlquad.spec",
    "nq": "transforms.nq.spec",
    "jnq": "transforms.jnq.spec",
    "reqa": "transforms.reqa.spec",
    "search-index": "transforms.search_index.spec",
    "categories": "transforms.categories.spec",
}
ALIASES = {"search_index": "search-index"}
#: release dataset name -> {"spec", "renderer", "evaluator"} of each kind, from the specs
RELEASES_FILE = Path(__file__).resolve().with_name("releases.json")


def names() -> list[str]:
    """The ``qa-build`` names of every dataset."""
    return list(SPEC_MODULES)


def spec(name: str) -> DatasetSpec:
    """The spec of a dataset by its ``qa-build`` name (or alias); ``KeyError`` if unknown."""
    name = ALIASES.get(name, name)
    return importlib.import_module(SPEC_MODULES[name]).SPEC


def specs() -> Iterator[DatasetSpec]:
    """Every spec, in registry order."""
    for name in SPEC_MODULES:
        yield spec(name)


def by_module(module: str) -> DatasetSpec:
    """The spec whose entry point is ``pipelines.<module>`` (``build_nq``)."""
    for candidate in specs():
        if candidate.module == module:
            return candidate
    raise KeyError(module)


def release_kind(dataset: str) -> ReleaseKind | None:
    """The release kind of a release's ``dataset`` name (``nq``, ``nq_annotated``,
    ``reqa_squad``), or None for a release no spec declares; imports only its spec."""
    entry = stored_releases().get(dataset)
    return spec(entry["spec"]).release(dataset) if entry is not None else None


def release_index() -> dict[str, dict[str, Any]]:
    """Each release kind of every spec (in registry order) by its dataset name: its spec's
    name, renderer and evaluator (imports every spec; ``releases.json`` stores it)."""
    index: dict[str, dict[str, Any]] = {}
    for candidate in specs():
        for kind in (*candidate.releases, *candidate.extra_releases):
            index.setdefault(kind.dataset, {"spec": candidate.name, "renderer": kind.renderer,
                                            "evaluator": kind.evaluator})
    return index


def release_index_text() -> str:
    """``release_index()`` as ``releases.json`` stores it."""
    return json.dumps(release_index(), indent=1) + "\n"


def stored_releases() -> dict[str, dict[str, Any]]:
    """``release_index()`` as stored in ``releases.json`` (no spec module imported)."""
    return json.loads(RELEASES_FILE.read_text(encoding="utf-8"))


def renderer_of(dataset: str) -> str:
    """The browser renderer module of a release's dataset name (generic when undeclared)."""
    entry = stored_releases().get(dataset)
    return entry["renderer"] if entry is not None else GENERIC_RENDERER


def evaluation_tasks() -> list[str]:
    """The tasks ``python -m pipelines.evaluate`` scores, from the specs' evaluators."""
    tasks: list[str] = []
    for entry in stored_releases().values():
        if entry["evaluator"] and entry["evaluator"] not in tasks:
            tasks.append(entry["evaluator"])
    return tasks


def by_options(options: type) -> DatasetSpec:
    """The spec whose options dataclass is ``options``."""
    for candidate in specs():
        if candidate.options is options:
            return candidate
    raise KeyError(options.__name__)
