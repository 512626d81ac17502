"""Score predictions against a gold set: NQ, NLQuAD, ReQA or JNQ.

    python -m pipelines.evaluate {nq,nlquad,reqa,jnq} --gold PATH --predictions PATH
        [--threshold N] [--split NAME] [--strict] [--legacy-tokenizer {regex,nltk}]

    python -m pipelines.evaluate baseline {nq,nlquad,reqa,jnq} --gold PATH --out FILE
        [--method NAME] [--split NAME] [--top N] [--overwrite] [--no-verify]

Prints one JSON object (sorted keys) to stdout; warnings go to stderr. ``baseline`` writes
the predictions of an untrained baseline the release's card reports
(``transforms.metrics.baselines``), in the format the task reads, to a new ``--out``
(checked before any work; ``--overwrite`` replaces it) through a temporary file and a rename.
Formats, baselines and a worked example: ``docs/guides/evaluation.md``.

``--gold`` may be a dataset root with a ``LATEST`` file (``releases/nlquad``): its latest
version is read; a ``LATEST`` that names no sibling version directory exits 2.

* ``nq``: gold in the NQ original format (``.jsonl.gz`` or ``.jsonl``; a glob, a file or a
  directory — a ``build_nq`` release reads ``nq_original/[<split>/]``), predictions in the
  official predictions JSON; prints exactly the keys of ``natural_questions.nq_eval``.
  ``--threshold`` is the number of non-null annotations for gold to have an answer (2).
* ``nlquad``: gold a ``build_nlquad`` release directory (every split's Parquet, or
  ``--split dev``), Parquet files, or NLQuAD's SQuAD-like JSON; predictions
  ``{id: "answer text" | {"answer_start": c, "answer_end": c} |
  {"answer_word_start": w, "answer_word_end": w}}``.
* ``reqa``: gold a ReQA release directory with ``questions/*.parquet`` (``qid``,
  ``correct_candidate_ids``, ...) and ``candidates/*.parquet`` (``candidate_id``,
  ``paragraph_id``, ``document``, ...); predictions ``{qid: [candidate ids, best first]}``.
* ``jnq``: gold ``{qid: [paragraph ids]}`` JSON (``[]``/``null``/``"NONE"``: no answer) or a
  release directory / Parquet files with ``id`` and ``gold_paragraph_ids`` columns;
  predictions ``{qid: [paragraph ids]}``.

A gold release directory is first checked against its manifest (``--no-verify`` skips it):
a damaged release exits 5, naming the bad files. Exit code 2 with a message on stderr for a
missing file, malformed JSON or gold, an
unannotated gold (an NQ gold without a single annotation, a JNQ release without
``gold_paragraph_ids``: annotate it first with ``python -m pipelines.annotate``), or when none
of the prediction ids is in the gold (wrong files). Prediction ids that are not in the gold are
otherwise counted (``n_unknown_prediction_ids``; for ``nq`` on stderr only, to keep the
official keys) and ignored; ``--strict`` makes them, and gold questions without a prediction,
an error. When no id matches, or the scores are 0, ``hint:`` lines after the error and
``warning:`` lines name the likely cause (``transforms.metrics.hints``).
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

from filters.text import safe_json
from filters.text.terminal import printable
from pipelines.cli.errors import EXIT_DAMAGED
from transforms import registry
from transforms.metrics import jnq as eval_jnq
from transforms.metrics import nlquad as eval_nlquad
from transforms.metrics import nq as eval_nq
from transforms.metrics import reqa as eval_reqa
from transforms.metrics.baselines import jnq as jnq_baselines
from transforms.metrics.baselines import nlquad as nlquad_baselines
from transforms.metrics.baselines import nq as nq_baselines
from transforms.metrics.baselines import reqa as reqa_baselines
from transforms.metrics.baselines.output import OutputError, check_output, write_json
from transforms.metrics.hints import (
    as_word_offsets,
    jnq_zero_hints,
    nlquad_zero_hints,
    nq_zero_hints,
    reqa_unknown_hints,
    unmatched_id_hints,
)
from transforms.release import (
    MANIFEST,
    DamagedReleaseError,
    InvalidLatestError,
    NotAReleaseError,
    require_intact,
    resolve_release,
)
from transforms.release.storage import is_local


class EvaluationError(Exception):
    """A problem with the inputs, reported on stderr with exit code 2, with the likely
    causes (``hints``) on lines of their own."""

    def __init__(self, message: str, hints: Sequence[str] = ()):
        super().__init__(message + "".join(f"; hint: {hint}" for hint in hints))
        self.message, self.hints = message, list(hints)


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def _examples(ids: Iterable[Any], limit: int = 5) -> str:
    ids = sorted(map(str, ids))
    return ", ".join(ids[:limit]) + (", ..." if len(ids) > limit else "")


def _hints(what: str, hints: Iterable[str]) -> None:
    for hint in hints:
        _warn(f"{what}: {hint}")


def check_ids(predicted: Collection[str], gold: Collection[str], strict: bool,
              what: str = "prediction",
              hints: Callable[[], list[str]] | None = None) -> None:
    """Fail when no predicted id is in the gold (or, strict, any is not), with ``hints()``
    (default: :func:`transforms.metrics.hints.unmatched_id_hints`); warn otherwise."""
    unknown = set(predicted) - set(gold)
    missing = set(gold) - set(predicted)
    if predicted and len(unknown) == len(set(predicted)):
        raise EvaluationError(f"none of the {len(unknown)} {what} ids is in the gold "
                              f"(e.g. {_examples(unknown, 3)}): wrong files?",
                              hints() if hints else unmatched_id_hints(predicted, gold))
    if strict and (unknown or missing):
        raise EvaluationError(f"--strict: {len(unknown)} {what} ids not in the gold "
                              f"({_examples(unknown)}), {len(missing)} gold ids without a "
                              f"{what} ({_examples(missing)})")
    if unknown:
        _warn(f"{len(unknown)} {what} ids are not in the gold and were ignored: "
              f"{_examples(unknown)}")
    if missing:
        _warn(f"{len(missing)} gold ids have no {what} and score as unanswered: "
              f"{_examples(missing)}")


# ---------------------------------------------------------------------------------------------
# Files


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
    data = load_json(path)
    if not isinstance(data, dict):
        raise EvaluationError(f"{path}: {what} must be a JSON object, not "
                              f"{type(data).__name__}")
    return data


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
            rows.extend(pq.read_table(file, columns=columns).to_pylist())
        except EvaluationError:
            raise
        except Exception as err:  # pyarrow raises several types for unreadable files
            raise EvaluationError(f"cannot read Parquet {file}: {err}") from err
    return rows


# ---------------------------------------------------------------------------------------------
# Tasks


def _other_splits(root: Path, split: str | None,
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


def _parquet_ids(directory: Path) -> set[str]:
    return {str(row["id"]) for row in read_parquet_rows(parquet_files(str(directory)), ("id",))}


def nq_gold_path(args: argparse.Namespace) -> str:
    """The NQ gold files of ``--gold``/``--split``: a release's ``nq_original/[<split>/]``."""
    release = Path(args.gold) / "nq_original"
    if release.is_dir():
        return str(release / args.split) if args.split else str(release)
    return str(Path(args.gold) / args.split) if args.split else args.gold


def evaluate_nq(args: argparse.Namespace) -> dict[str, Any]:
    gold_path = nq_gold_path(args)
    try:
        gold = eval_nq.read_gold(gold_path)
    except FileNotFoundError as err:
        raise EvaluationError(str(err)) from err
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as err:
        raise EvaluationError(f"bad NQ gold {gold_path}: {err}") from err
    if gold and not any(gold.values()):
        raise EvaluationError(
            f"the gold {gold_path} is not annotated: none of its {len(gold)} examples has an "
            "annotation, so every score would be 0; annotate it first (python -m "
            "pipelines.annotate import) and pass the annotated release")
    data = load_json(args.predictions)
    try:
        predictions = eval_nq.predictions_from_json(data)
    except ValueError as err:
        raise EvaluationError(f"{args.predictions}: {err}") from err
    root = Path(args.gold) / "nq_original"
    check_ids(predictions, gold, args.strict, hints=lambda: unmatched_id_hints(
        predictions, gold, _other_splits(root if root.is_dir() else Path(args.gold),
                                         args.split, lambda d: eval_nq.read_gold(str(d)))))
    threshold = 2 if args.threshold is None else args.threshold
    result = eval_nq.nq_metrics(gold, predictions, min_non_null=threshold)
    if not result["long-best-threshold-f1"]:
        _hints("long-answer F1 is 0", nq_zero_hints(data["predictions"], gold, predictions,
                                                    threshold))
    return result


def _nlquad_gold(path: str, split: str | None) -> dict[str, eval_nlquad.NlquadGold]:
    if path.endswith(".json") and not Path(path).is_dir():
        data = load_object(path, "NLQuAD SQuAD-like gold")
        return eval_nlquad.gold_from_squad(data)
    rows = read_parquet_rows(parquet_files(path, split),
                             ("id", "context", "answer_text", "answer_start", "answer_end"),
                             ("answer_word_start", "answer_word_end"))
    return eval_nlquad.gold_from_rows(rows)


def _legacy_tokenizer(name: str) -> eval_nlquad.Tokenizer:
    if name == "regex":
        return eval_nlquad.treebank_tokenize
    try:
        import nltk  # type: ignore[import-not-found]

        nltk.word_tokenize("probe.")
    except Exception as err:  # ImportError, or LookupError without the punkt data
        raise EvaluationError(f"--legacy-tokenizer nltk needs nltk and its punkt data: "
                              f"{err}") from err
    return nltk.word_tokenize


def evaluate_nlquad(args: argparse.Namespace) -> dict[str, Any]:
    if args.split and not Path(args.gold).is_dir():
        raise EvaluationError("--split needs --gold to be a release directory")
    try:
        gold = _nlquad_gold(args.gold, args.split)
    except (ValueError, TypeError, AttributeError) as err:
        raise EvaluationError(f"bad NLQuAD gold {args.gold}: {err}") from err
    predictions = load_object(args.predictions, "NLQuAD predictions")
    check_ids(predictions, gold, args.strict, hints=lambda: unmatched_id_hints(
        predictions, gold, _other_splits(Path(args.gold), args.split, _parquet_ids)))
    tokenize = _legacy_tokenizer(args.legacy_tokenizer)
    try:
        result = eval_nlquad.nlquad_metrics(gold, predictions, tokenize)
    except ValueError as err:
        hints = (["answer_word_start/answer_word_end index the words of context.split(); "
                  "character offsets are answer_start/answer_end"]
                 if "word offsets" in str(err) else [])
        raise EvaluationError(str(err), hints) from err
    if result["f1"] < 0.1 or not result["iou"]:
        renamed = as_word_offsets(predictions, {k: len(g.context.split()) for k, g in gold.items()})
        as_words = eval_nlquad.nlquad_metrics({k: gold[k] for k in renamed}, renamed,
                                              tokenize) if renamed else None
        _hints(f"F1 {result['f1']:.3f}, IoU {result['iou']:.3f}",
               nlquad_zero_hints(predictions, result, as_words))
    return result


def _reqa_gold(root: str) -> tuple[dict[str, set[str]], dict[str, tuple[str, str]],
                                   dict[str, str]]:
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


def evaluate_reqa(args: argparse.Namespace) -> dict[str, Any]:
    if args.split:
        raise EvaluationError("--split is not used for reqa: point --gold at the release "
                              "directory holding questions/ and candidates/")
    questions, paragraph_of, texts = _reqa_gold(args.gold)
    raw = load_object(args.predictions, "ReQA rankings")
    rankings: dict[str, list[str]] = {}
    for qid, ranking in raw.items():
        if not isinstance(ranking, list):
            raise EvaluationError(f"{args.predictions}: the ranking of {qid} must be a list of "
                                  f"candidate ids")
        rankings[qid] = [str(c) for c in ranking]
    check_ids(rankings, questions, args.strict,
              hints=lambda: unmatched_id_hints(rankings, questions, questions=texts))
    result = eval_reqa.reqa_metrics(questions, rankings, paragraph_of)
    if result.get("n_unknown_candidate_ids"):
        _warn(f"{result['n_unknown_candidate_ids']} ranked candidate ids are not in "
              f"candidates/ (counted as wrong)")
        _hints("ranked ids", reqa_unknown_hints(rankings, paragraph_of))
    return result


def _jnq_gold(path: str, split: str | None) -> dict[str, Any]:
    if split and not Path(path).is_dir():
        raise EvaluationError("--split needs --gold to be a release directory")
    if path.endswith(".json") and not Path(path).is_dir():
        return load_object(path, "JNQ gold")
    files = parquet_files(path, split)
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(files[0]).names
    except Exception as err:
        raise EvaluationError(f"cannot read Parquet {files[0]}: {err}") from err
    key = "id" if "id" in names else "qid"
    if "gold_paragraph_ids" not in names and "candidate_paragraph_ids" in names:
        raise EvaluationError(
            f"the gold {path} is an unannotated JNQ release (no gold_paragraph_ids): annotate "
            "it first (python -m pipelines.annotate import) and pass the annotated release")
    rows = read_parquet_rows(files, (key, "gold_paragraph_ids"))
    return {str(row[key]): row["gold_paragraph_ids"] for row in rows}


def evaluate_jnq(args: argparse.Namespace) -> dict[str, Any]:
    gold = _jnq_gold(args.gold, args.split)
    predictions = load_object(args.predictions, "JNQ predictions")
    gold_ids = {str(q) for q in gold}
    check_ids(predictions, gold_ids, args.strict, hints=lambda: unmatched_id_hints(
        predictions, gold_ids, _other_splits(Path(args.gold), args.split, _parquet_ids)))
    try:
        result = eval_jnq.jnq_metrics(gold, predictions)
    except ValueError as err:
        raise EvaluationError(str(err)) from err
    _hints("micro F1 is 0", jnq_zero_hints(gold, predictions, result))
    return result


EVALUATORS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "nq": evaluate_nq, "nlquad": evaluate_nlquad, "reqa": evaluate_reqa, "jnq": evaluate_jnq}


# ---------------------------------------------------------------------------------------------
# Baselines: ``python -m pipelines.evaluate baseline TASK --gold ... --out ...``


def _release_rows(args: argparse.Namespace, columns: Sequence[str]) -> list[dict[str, Any]]:
    if args.gold.endswith(".json") or (args.split and not Path(args.gold).is_dir()):
        raise EvaluationError(f"baseline {args.task} reads a release directory (or its Parquet "
                              f"files), not {args.gold}")
    return read_parquet_rows(parquet_files(args.gold, args.split), columns)


def baseline_nlquad(args: argparse.Namespace) -> dict[str, Any]:
    from transforms.clients.local_search import IndexTokenizer

    rows = _release_rows(args, ("id", "question", "context", "answer_word_start",
                                "answer_word_end"))
    return nlquad_baselines.window_predictions(rows, args.method, IndexTokenizer("en"))


def baseline_nq(args: argparse.Namespace) -> dict[str, Any]:
    gold_path = nq_gold_path(args)
    try:
        examples = (example for path in eval_nq.expand_paths(gold_path)
                    for example in eval_nq.iter_jsonl(path))
        data = nq_baselines.first_paragraph_predictions(examples)
    except FileNotFoundError as err:
        raise EvaluationError(str(err)) from err
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as err:
        raise EvaluationError(f"bad NQ gold {gold_path}: {err}") from err
    except (KeyError, IndexError, TypeError) as err:
        raise EvaluationError(f"{gold_path}: the baseline needs NQ's original format "
                              f"(document_tokens, long_answer_candidates): {err!r}") from err
    data["predictions"].sort(key=lambda prediction: str(prediction["example_id"]))
    return data


def baseline_reqa(args: argparse.Namespace) -> dict[str, Any]:
    from transforms.clients.local_search import IndexTokenizer

    if args.split:
        raise EvaluationError("--split is not used for reqa (every question is ranked)")
    base = Path(args.gold)
    for sub in ("questions", "candidates"):
        if not (base / sub).is_dir():
            raise EvaluationError(f"a ReQA release needs {base / sub}/")
    questions = read_parquet_rows(parquet_files(str(base / "questions")), ("qid", "question"))
    candidates = read_parquet_rows(parquet_files(str(base / "candidates")),
                                   ("candidate_id", "sentence", "context", "paragraph_id"))
    return reqa_baselines.bm25_rankings(questions, candidates, args.method,
                                        IndexTokenizer("en"), args.top)


def baseline_jnq(args: argparse.Namespace) -> dict[str, Any]:
    rows = _release_rows(args, ("id", "candidate_paragraph_ids", "candidate_ranks"))
    return jnq_baselines.paragraph_predictions(rows, args.method)


#: task -> (writer, its methods, the default method)
BASELINES: dict[str, tuple[Callable[[argparse.Namespace], dict[str, Any]], list[str], str]] = {
    "nlquad": (baseline_nlquad, list(nlquad_baselines.METHODS), "bm25-window"),
    "nq": (baseline_nq, list(nq_baselines.METHODS), "first-paragraph"),
    "reqa": (baseline_reqa, list(reqa_baselines.METHODS), "bm25-paragraphs"),
    "jnq": (baseline_jnq, list(jnq_baselines.METHODS), "first-paragraph"),
}


def build_baseline_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.evaluate baseline",
        description="Write an untrained baseline's predictions, the ones the release's card "
                    "scores, in the format 'evaluate TASK --predictions' reads.")
    parser.add_argument("task", choices=list(BASELINES))
    parser.add_argument("--gold", required=True,
                        help="the release to predict for, as evaluate's --gold")
    parser.add_argument("--out", required=True,
                        help="predictions JSON to write (its directory must exist)")
    parser.add_argument("--method", help="; ".join(
        f"{task}: {', '.join(methods)} (default {default})"
        for task, (_, methods, default) in BASELINES.items()))
    parser.add_argument("--split", help="predict only this split of a release directory")
    parser.add_argument("--top", type=_positive_int, default=None,
                        help="reqa: keep the first N candidates of each ranking (default all: "
                             "the card's exact ranks)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    parser.add_argument("--no-verify", action="store_true",
                        help="do not check a gold release against its manifest first")
    return parser


def run_baseline(argv: Sequence[str]) -> int:
    """``evaluate baseline``: check ``--out``, predict, write atomically; exit 0, 2 or 5."""
    parser = build_baseline_parser()
    args = parser.parse_args(argv)
    write, methods, default = BASELINES[args.task]
    args.method = args.method or default
    if args.method not in methods:
        parser.error(f"--method for {args.task}: one of {', '.join(methods)}")
    if args.top is not None and args.task != "reqa":
        parser.error("--top applies to reqa only")
    try:
        check_output(args.out, args.overwrite)
        args.gold = resolve_latest(args.gold)
        if (Path(args.gold) / MANIFEST).is_file() and not args.no_verify:
            require_intact(args.gold)
        data = write(args)
        write_json(args.out, data, args.overwrite)
    except OutputError as err:
        print(f"error: {printable(err)}", file=sys.stderr)
        return 2
    except EvaluationError as err:
        print(f"error: {printable(err.message)}", file=sys.stderr)
        return 2
    except DamagedReleaseError as err:
        print(f"error: {printable(err)}", file=sys.stderr)
        return EXIT_DAMAGED
    count = len(data["predictions"]) if args.task == "nq" else len(data)
    print(f"wrote {count} {args.task} predictions of the {args.method} baseline to "
          f"{printable(args.out)}")
    return 0


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.evaluate",
        description="Score predictions against NQ, NLQuAD, ReQA or JNQ gold; prints JSON.",
        epilog="python -m pipelines.evaluate baseline TASK --gold PATH --out FILE writes an "
               "untrained baseline's predictions in the format TASK reads (baseline --help).")
    parser.add_argument("task", choices=registry.evaluation_tasks())
    parser.add_argument("--gold", required=True, help="gold file, glob or release directory")
    parser.add_argument("--predictions", required=True, help="predictions JSON file")
    parser.add_argument("--threshold", type=_positive_int, default=None,
                        help="nq: non-null annotations needed for a gold answer (default 2)")
    parser.add_argument("--split", help="read only this split of a release directory")
    parser.add_argument("--strict", action="store_true",
                        help="unknown prediction ids and gold without predictions are errors")
    parser.add_argument("--no-verify", action="store_true",
                        help="do not check a gold release against its manifest first")
    parser.add_argument("--legacy-tokenizer", choices=("regex", "nltk"), default="regex",
                        help="nlquad: tokenizer of the published script's IoU (iou_legacy)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["baseline"]:
        return run_baseline(argv[1:])
    args = build_parser().parse_args(argv)
    if args.threshold is not None and args.task != "nq":
        print("error: --threshold applies to nq only", file=sys.stderr)
        return 2
    try:
        args.gold = resolve_latest(args.gold)
        if (Path(args.gold) / MANIFEST).is_file() and not args.no_verify:
            require_intact(args.gold)
        result = EVALUATORS[args.task](args)
    except EvaluationError as err:
        print(f"error: {printable(err.message)}", file=sys.stderr)
        for hint in err.hints:
            print(f"hint: {printable(hint)}", file=sys.stderr)
        return 2
    except DamagedReleaseError as err:
        print(f"error: {printable(err)}", file=sys.stderr)
        return EXIT_DAMAGED
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
