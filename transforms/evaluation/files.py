"""JSON and Parquet files read for an evaluation, failing with an :class:`EvaluationError`."""

from __future__ import annotations

import glob
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from filters.text import safe_json
from transforms.evaluation.errors import EvaluationError


def load_json(path: str) -> Any:
    """A JSON file's content, or :class:`EvaluationError`."""
    try:
        with open(path, encoding="utf-8") as handle:
            return safe_json.load(handle)
    except FileNotFoundError as err:
        raise EvaluationError(f"no such file: {path}") from err
    except IsADirectoryError as err:
        raise EvaluationError(f"expected a JSON file, got a directory: {path}") from err
    except ValueError as err:  # malformed, not UTF-8, or nested too deeply (JsonTooDeep)
        raise EvaluationError(f"{path} is not valid JSON: {err}") from err


def load_object(path: str, what: str) -> dict[str, Any]:
    """A JSON file holding an object (``what`` names it in the error otherwise)."""
    data = load_json(path)
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
