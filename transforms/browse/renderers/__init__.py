"""The renderer of each kind of release: dataset name -> module with ``make(view)``.

``nq`` and ``nq_annotated`` -> ``nq``; ``nlquad`` -> ``nlquad``; ``jnq``, ``jboolq`` and any
other ``*_annotated`` -> ``jnq``; ``reqa_*`` -> ``reqa``; anything else -> ``generic``. A
module is imported only when its dataset is browsed (ReQA's imports BM25).
"""

from __future__ import annotations

import importlib

from transforms.browse.base import ReleaseView, Renderer

BY_DATASET = {"nq": "nq", "nq_annotated": "nq", "nlquad": "nlquad", "jnq": "jnq",
              "jboolq": "jnq"}


def module_name(dataset: str) -> str:
    """The renderer module (in this package) of a dataset name."""
    if dataset in BY_DATASET:
        return BY_DATASET[dataset]
    if dataset.endswith("_annotated"):
        return "jnq"
    if dataset.startswith("reqa_"):
        return "reqa"
    return "generic"


def for_release(view: ReleaseView) -> Renderer:
    """The renderer of the release ``view``: its module's ``make(view)``."""
    module = importlib.import_module(f"{__name__}.{module_name(view.dataset)}")
    return module.make(view)
