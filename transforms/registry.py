"""Every dataset the toolkit builds: one ``DatasetSpec`` each, listed once.

Console scripts (``qa-build``), Dataflow Flex Templates, ``pipelines.api``, the release
browser and ``python -m pipelines.evaluate`` enumerate datasets only through this registry,
so a new dataset is one ``transforms/<dataset>/spec.py`` plus one line here
(``CONTRIBUTING.md``, "Add a dataset"). Specs are imported when first asked for, so listing
names does not import Beam stages.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator

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
    ``reqa_squad``), or None for a release no spec declares."""
    for candidate in specs():
        for kind in (*candidate.releases, *candidate.extra_releases):
            if kind.dataset == dataset:
                return kind
    return None


def renderer_of(dataset: str) -> str:
    """The browser renderer module of a release's dataset name (generic when undeclared)."""
    kind = release_kind(dataset)
    return kind.renderer if kind is not None else GENERIC_RENDERER


def evaluation_tasks() -> list[str]:
    """The tasks ``python -m pipelines.evaluate`` scores, from the specs' evaluators."""
    tasks: list[str] = []
    for candidate in specs():
        for kind in (*candidate.releases, *candidate.extra_releases):
            if kind.evaluator and kind.evaluator not in tasks:
                tasks.append(kind.evaluator)
    return tasks


def by_options(options: type) -> DatasetSpec:
    """The spec whose options dataclass is ``options``."""
    for candidate in specs():
        if candidate.options is options:
            return candidate
    raise KeyError(options.__name__)
