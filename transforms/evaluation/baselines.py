"""``evaluate baseline TASK``: the predictions of the untrained baselines a release's card
reports (``transforms.metrics.baselines``), in the format ``evaluate TASK`` reads, written to
a new file (checked before any work) through a temporary file and a rename."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from transforms.evaluation.errors import EvaluationError
from transforms.evaluation.files import parquet_files, read_parquet_rows
from transforms.evaluation.gold import nq_gold_path, verified_gold
from transforms.evaluation.options import BaselineOptions
from transforms.metrics import nq as eval_nq
from transforms.metrics.baselines import jnq as jnq_baselines
from transforms.metrics.baselines import nlquad as nlquad_baselines
from transforms.metrics.baselines import nq as nq_baselines
from transforms.metrics.baselines import reqa as reqa_baselines
from transforms.metrics.baselines.output import check_output, write_json


def _release_rows(options: BaselineOptions, columns: Sequence[str]) -> list[dict[str, Any]]:
    if options.gold.endswith(".json") or (options.split and not Path(options.gold).is_dir()):
        raise EvaluationError(f"baseline {options.task} reads a release directory (or its "
                              f"Parquet files), not {options.gold}")
    return read_parquet_rows(parquet_files(options.gold, options.split), columns)


def baseline_nlquad(options: BaselineOptions) -> dict[str, Any]:
    """``{id: {"answer_word_start": w, "answer_word_end": w}}`` of a window baseline."""
    from transforms.clients.local_search import IndexTokenizer

    rows = _release_rows(options, ("id", "question", "context", "answer_word_start",
                                   "answer_word_end"))
    return nlquad_baselines.window_predictions(rows, options.method, IndexTokenizer("en"))


def baseline_nq(options: BaselineOptions) -> dict[str, Any]:
    """The official predictions JSON of the first-paragraph baseline, sorted by example id."""
    gold_path = nq_gold_path(options.gold, options.split)
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


def baseline_reqa(options: BaselineOptions) -> dict[str, Any]:
    """``{qid: [candidate ids, best first]}`` of a BM25 baseline (``top``: the first N)."""
    from transforms.clients.local_search import IndexTokenizer

    if options.split:
        raise EvaluationError("--split is not used for reqa (every question is ranked)")
    base = Path(options.gold)
    for sub in ("questions", "candidates"):
        if not (base / sub).is_dir():
            raise EvaluationError(f"a ReQA release needs {base / sub}/")
    questions = read_parquet_rows(parquet_files(str(base / "questions")), ("qid", "question"))
    candidates = read_parquet_rows(parquet_files(str(base / "candidates")),
                                   ("candidate_id", "sentence", "context", "paragraph_id"))
    return reqa_baselines.bm25_rankings(questions, candidates, options.method,
                                        IndexTokenizer("en"), options.top)


def baseline_jnq(options: BaselineOptions) -> dict[str, Any]:
    """``{qid: [paragraph ids]}`` of a candidate-paragraph baseline."""
    rows = _release_rows(options, ("id", "candidate_paragraph_ids", "candidate_ranks"))
    return jnq_baselines.paragraph_predictions(rows, options.method)


#: task -> (writer, its methods, the default method)
BASELINES: dict[str, tuple[Callable[[BaselineOptions], dict[str, Any]], list[str], str]] = {
    "nlquad": (baseline_nlquad, list(nlquad_baselines.METHODS), "bm25-window"),
    "nq": (baseline_nq, list(nq_baselines.METHODS), "first-paragraph"),
    "reqa": (baseline_reqa, list(reqa_baselines.METHODS), "bm25-paragraphs"),
    "jnq": (baseline_jnq, list(jnq_baselines.METHODS), "first-paragraph"),
}


def write_baseline(options: BaselineOptions) -> int:
    """Check ``out``, resolve and (``verify``) check the gold, predict, write atomically;
    returns the number of predictions. Raises ``OutputError``, :class:`EvaluationError` or
    ``DamagedReleaseError``."""
    check_output(options.out, options.overwrite)
    options = replace(options, gold=verified_gold(options.gold, options.verify))
    predict = BASELINES[options.task][0]
    data = predict(options)
    write_json(options.out, data, options.overwrite)
    return len(data["predictions"]) if options.task == "nq" else len(data)
