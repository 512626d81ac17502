"""``--gold``: the release version a path names, checked against its manifest, and each
task's gold read from a release directory, Parquet files or the dataset's original format.

* ``nq``: the NQ original format (``.jsonl.gz`` or ``.jsonl``; a glob, a file or a
  directory — a ``build_nq`` release reads ``nq_original/[<split>/]``).
* ``nlquad``: a ``build_nlquad`` release directory (every split's Parquet, or one split),
  Parquet files, or NLQuAD's SQuAD-like JSON.
* ``reqa``: a ReQA release directory with ``questions/*.parquet`` (``qid``,
  ``correct_candidate_ids``, ...) and ``candidates/*.parquet`` (``candidate_id``,
  ``paragraph_id``, ``document``, ...).
* ``jnq``: ``{qid: [paragraph ids]}`` JSON (``[]``/``null``/``"NONE"``: no answer) or a
  release directory / Parquet files with ``id`` and ``gold_paragraph_ids`` columns.

Gold is read from local files only; ``rejected/`` is never read.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from transforms.evaluation.errors import EvaluationError
from transforms.evaluation.files import (
    load_object,
    parquet_files,
    parquet_schema_names,
    read_parquet_rows,
)
from transforms.metrics import nlquad as eval_nlquad
from transforms.release import (
    MANIFEST,
    InvalidLatestError,
    NotAReleaseError,
    require_intact,
    resolve_release,
)
from transforms.release.storage import is_local


def resolve_latest(path: str) -> str:
    """``--gold``: a dataset root holding ``LATEST`` means the version it names
    (``transforms.release.resolve_release``; a ``LATEST`` naming no sibling version directory
    is an :class:`EvaluationError`); any other local path (a file, a glob, a version or bare
    Parquet directory) is returned as given. Gold is read from local files only."""
    if not is_local(path):
        return path
    try:
        return resolve_release(path, require_manifest=False)
    except InvalidLatestError as err:
        raise EvaluationError(str(err)) from err
    except NotAReleaseError:
        return path


def verified_gold(path: str, verify: bool = True) -> str:
    """:func:`resolve_latest`, then, when it is a release with a manifest and ``verify``,
    checked against it (``transforms.release.DamagedReleaseError`` naming the bad files)."""
    path = resolve_latest(path)
    if (Path(path) / MANIFEST).is_file() and verify:
        require_intact(path)
    return path


def other_splits(root: Path, split: str | None,
                 ids: Callable[[Path], Collection[str]]) -> dict[str, Collection[str]]:
    """The ids of each other split directory of a release (the wrong-split hint)."""
    if not split or not root.is_dir():
        return {}
    found: dict[str, Collection[str]] = {}
    for directory in sorted(root.iterdir()):
        if directory.is_dir() and not directory.is_symlink() and directory.name != split:
            try:
                found[directory.name] = ids(directory)
            except (EvaluationError, OSError, EOFError, ValueError):
                continue
    return found


def parquet_ids(directory: Path) -> set[str]:
    """The ``id`` column of a directory's Parquet files."""
    return {str(row["id"]) for row in read_parquet_rows(parquet_files(str(directory)), ("id",))}


def nq_gold_path(gold: str, split: str | None) -> str:
    """The NQ gold files of ``--gold``/``--split``: a release's ``nq_original/[<split>/]``."""
    release = Path(gold) / "nq_original"
    if release.is_dir():
        return str(release / split) if split else str(release)
    return str(Path(gold) / split) if split else gold


def nlquad_gold(path: str, split: str | None) -> dict[str, eval_nlquad.NlquadGold]:
    """NLQuAD gold from SQuAD-like JSON or a release's (``split``'s) Parquet files."""
    if path.endswith(".json") and not Path(path).is_dir():
        data = load_object(path, "NLQuAD SQuAD-like gold")
        return eval_nlquad.gold_from_squad(data)
    rows = read_parquet_rows(parquet_files(path, split),
                             ("id", "context", "answer_text", "answer_start", "answer_end"),
                             ("answer_word_start", "answer_word_end"))
    return eval_nlquad.gold_from_rows(rows)


ReqaGold = tuple[dict[str, set[str]], dict[str, tuple[str, str]], dict[str, str]]


def reqa_gold(root: str) -> ReqaGold:
    """A ReQA release's ``{qid: correct candidate ids}``, ``{candidate id: (document,
    paragraph)}`` and ``{qid: question}``."""
    base = Path(root)
    for sub in ("questions", "candidates"):
        if not (base / sub).is_dir():
            raise EvaluationError(f"a ReQA release needs {base / sub}/ (questions/*.parquet and "
                                  f"candidates/*.parquet)")
    questions: dict[str, set[str]] = {}
    texts: dict[str, str] = {}
    for row in read_parquet_rows(parquet_files(str(base / "questions")),
                                 ("qid", "correct_candidate_ids"), ("question",)):
        ids = row["correct_candidate_ids"]
        ids = [] if ids is None else [ids] if isinstance(ids, (str, int)) else ids
        questions[str(row["qid"])] = {str(c) for c in ids}
        texts[str(row["qid"])] = str(row.get("question") or "")
    paragraph_of: dict[str, tuple[str, str]] = {}
    for row in read_parquet_rows(parquet_files(str(base / "candidates")),
                                 ("candidate_id", "paragraph_id", "document")):
        candidate = str(row["candidate_id"])
        paragraph = row["paragraph_id"]
        # a paragraph is (document, paragraph_id): ids numbered per document stay distinct
        paragraph_of[candidate] = (str(row["document"]),
                                   f"candidate:{candidate}" if paragraph is None
                                   else str(paragraph))
    return questions, paragraph_of, texts


def jnq_gold(path: str, split: str | None) -> dict[str, Any]:
    """JNQ gold ``{qid: paragraph ids}`` from JSON or an annotated release's Parquet files."""
    if split and not Path(path).is_dir():
        raise EvaluationError("--split needs --gold to be a release directory")
    if path.endswith(".json") and not Path(path).is_dir():
        return load_object(path, "JNQ gold")
    files = parquet_files(path, split)
    names = parquet_schema_names(files[0])
    key = "id" if "id" in names else "qid"
    if "gold_paragraph_ids" not in names and "candidate_paragraph_ids" in names:
        raise EvaluationError(
            f"the gold {path} is an unannotated JNQ release (no gold_paragraph_ids): annotate "
            "it first (python -m pipelines.annotate import) and pass the annotated release")
    rows = read_parquet_rows(files, (key, "gold_paragraph_ids"))
    return {str(row[key]): row["gold_paragraph_ids"] for row in rows}
