"""JSON and Parquet files read for an evaluation, failing with an :class:`EvaluationError`.

A JSON object that repeats a key is refused: ``json`` keeps the last value silently, so a
predictions object naming one id twice would be scored on one of its answers without a word
(``ids.refuse_repeated`` names the repeats).
"""

from __future__ import annotations

import glob
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from filters.text import safe_json
from transforms.evaluation.errors import EvaluationError
from transforms.evaluation.ids import refuse_repeated


class _RepeatedKeys:
    """``object_pairs_hook`` that builds each object and remembers the keys it repeats: those
    of the last object built (the outermost, when the document is an object) and of all the
    others (nested)."""

    def __init__(self) -> None:
        self.outer: Counter[str] = Counter()
        self.nested: Counter[str] = Counter()

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        self.nested.update(self.outer)
        counts = Counter(key for key, _ in pairs)
        self.outer = Counter({key: n for key, n in counts.items() if n > 1})
        return dict(pairs)


def _parse(text: str) -> tuple[Any, _RepeatedKeys]:
    """``safe_json.loads`` (a nesting bomb is ``JsonTooDeep``) with repeated keys recorded."""
    hook = _RepeatedKeys()
    if text.count("[") + text.count("{") > safe_json.MAX_DEPTH \
            and safe_json.nesting_depth(text) > safe_json.MAX_DEPTH:
        raise safe_json.JsonTooDeep(f"JSON nested deeper than {safe_json.MAX_DEPTH} levels")
    try:
        return json.loads(text, object_pairs_hook=hook), hook
    except RecursionError as error:
        raise safe_json.JsonTooDeep(f"JSON too deeply nested to parse here: {error}") from None


def load_json(path: str, what: str = "JSON", keys: str = "key") -> Any:
    """A JSON file's content, or :class:`EvaluationError`; also when an object repeats a key
    (``what`` and ``keys`` name the file and its outermost keys in the message: ``NLQuAD
    predictions``, ``id``)."""
    try:
        with open(path, encoding="utf-8") as handle:
            data, repeated = _parse(handle.read())
    except FileNotFoundError as err:
        raise EvaluationError(f"no such file: {path}") from err
    except IsADirectoryError as err:
        raise EvaluationError(f"expected a JSON file, got a directory: {path}") from err
    except ValueError as err:  # malformed, not UTF-8, or nested too deeply (JsonTooDeep)
        raise EvaluationError(f"{path} is not valid JSON: {err}") from err
    outer = repeated.outer if isinstance(data, dict) else Counter()
    nested = repeated.nested if isinstance(data, dict) else repeated.nested + repeated.outer
    refuse_repeated(outer, f"the {what} ({path})", keys)
    refuse_repeated(nested, f"an object of the {what} ({path})", "key")
    return data


def load_object(path: str, what: str, keys: str = "key") -> dict[str, Any]:
    """A JSON file holding an object (``what`` names it in the error otherwise), each key
    once (``keys`` names them: ``id`` for predictions keyed by id)."""
    data = load_json(path, what, keys)
    if not isinstance(data, dict):
        raise EvaluationError(f"{path}: {what} must be a JSON object, not "
                              f"{type(data).__name__}")
    return data


def parquet_files(path: str, split: str | None = None) -> list[str]:
    """Parquet files of a release directory (each split's, or ``split``'s), a file or a glob.

    ``rejected/`` is never read.
    """
    root = Path(path)
    if root.is_dir():
        if split:
            root = root / split
            if not root.is_dir():
                raise EvaluationError(f"no split directory {root}")
        files = [p for p in sorted(root.rglob("*.parquet"))
                 if "rejected" not in p.relative_to(root).parts]
        found = [str(p) for p in files]
    else:
        found = sorted(glob.glob(path))
    if not found:
        raise EvaluationError(f"no Parquet file in {path}" + (f" (split {split})" if split else ""))
    return found


def read_parquet_rows(files: Sequence[str], required: Sequence[str],
                      optional: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Rows of the given columns (``required`` must exist; ``optional`` are read if present)."""
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = []
    for file in files:
        try:
            names = pq.read_schema(file).names
            absent = [c for c in required if c not in names]
            if absent:
                raise EvaluationError(f"{file} lacks the column(s) {', '.join(absent)} "
                                      f"(has {', '.join(names)})")
            columns = list(required) + [c for c in optional if c in names]
            rows.extend(pq.ParquetFile(file).read(columns=columns).to_pylist())
        except EvaluationError:
            raise
        except Exception as err:  # pyarrow raises several types for unreadable files
            raise EvaluationError(f"cannot read Parquet {file}: {err}") from err
    return rows


def parquet_schema_names(file: str) -> list[str]:
    """The column names of a Parquet file's schema."""
    import pyarrow.parquet as pq

    try:
        return pq.read_schema(file).names
    except Exception as err:
        raise EvaluationError(f"cannot read Parquet {file}: {err}") from err
