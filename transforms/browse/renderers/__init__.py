"""The renderer of each kind of release: dataset name -> module with ``make(view)``.

Each dataset's spec names the renderer of every release kind it declares
(``ReleaseKind.renderer``: ``nq`` for ``nq`` and ``nq_annotated``, ``jnq`` for the JNQ and
JBoolQ kinds, ``reqa`` for ``reqa_*``, ...); a release no spec declares gets ``generic``. A
module is imported only when its dataset is browsed (ReQA's imports BM25).

A dataset's own renderer is written for its pipeline's column types, so it is used only when
the release's tables have them: each such module declares ``expected_schemas(view)`` (table,
schema), and a release whose tables differ (a "numeric" column holding strings, which
``verify`` accepts when the manifest says so) is shown by the generic renderer, which shows
any value as escaped text; ``choose`` says why.
"""

from __future__ import annotations

import importlib
import re

import pyarrow as pa

from transforms.browse.base import ReleaseView, Renderer
from transforms.core.spec import GENERIC_RENDERER
from transforms.registry import renderer_of

GENERIC = GENERIC_RENDERER
MAX_PROBLEMS = 5


def module_name(dataset: str) -> str:
    """The renderer module (in this package) of a release's dataset name, as its spec
    declares it (``transforms.registry``); ``generic`` for a release no spec declares."""
    return renderer_of(dataset)


def _type(kind: pa.DataType) -> str:
    """A type's text without nullability marks or list item names (as ``verify`` compares)."""
    return re.sub(r"list<(item|element): ", "list<", str(kind).replace(" not null", ""))


def schema_problems(actual: pa.Schema, expected: pa.Schema) -> list[str]:
    """Each column of ``expected`` that ``actual`` lacks or holds with another type."""
    problems = []
    for field in expected:
        if field.name not in actual.names:
            problems.append(f"no column {field.name}")
        elif _type(actual.field(field.name).type) != _type(field.type):
            problems.append(f"column {field.name} is {_type(actual.field(field.name).type)}, "
                            f"not {_type(field.type)}")
    return problems


def choose(view: ReleaseView) -> tuple[str, str]:
    """``(module, why not the dataset's own)``: the dataset's renderer and ``""`` when the
    release's tables have the columns it was written for, else ``generic`` and the reason."""
    name = module_name(view.dataset)
    if name == GENERIC:
        return name, ""
    expected = getattr(importlib.import_module(f"{__name__}.{name}"), "expected_schemas", None)
    if expected is None:
        return GENERIC, f"the {name} renderer declares no schema"
    problems = [f"{table.directory}: {problem}" for table, schema in expected(view)
                for problem in schema_problems(table.schema, schema)]
    if not problems:
        return name, ""
    more = f" (and {len(problems) - MAX_PROBLEMS} more)" if len(problems) > MAX_PROBLEMS else ""
    return GENERIC, (f"the {name} renderer is not used: " + "; ".join(problems[:MAX_PROBLEMS])
                     + more)


def for_release(view: ReleaseView, name: str | None = None) -> Renderer:
    """The renderer of the release ``view``: the module ``name`` (by default ``choose``'s)
    and its ``make(view)``."""
    module = importlib.import_module(f"{__name__}.{name or choose(view)[0]}")
    return module.make(view)
