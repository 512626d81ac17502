"""The evaluator of each task: read the gold and the predictions, check their ids, score
with ``transforms.metrics`` and name the likely cause of a zero score (``hints``).

Predictions: ``nq`` the official predictions JSON (the result has exactly the keys of
``natural_questions.nq_eval``; unknown prediction ids are reported on stderr only);
``nlquad`` ``{id: "answer text" | {"answer_start": c, "answer_end": c} |
{"answer_word_start": w, "answer_word_end": w}}``; ``reqa`` ``{qid: [candidate ids, best
first]}``; ``jnq`` ``{qid: [paragraph ids]}``. An id given twice (one NQ example predicted
twice, a key repeated in an object) is refused with its name (exit 2), never scored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from transforms.evaluation.errors import EvaluationError, warn, warn_hints
from transforms.evaluation.files import load_json, load_object
from transforms.evaluation.gold import (
    jnq_gold,
    nlquad_gold,
    nq_gold_path,
    other_splits,
    parquet_ids,
    reqa_gold,
    verified_gold,
)
from transforms.evaluation.ids import check_ids, refuse_repeated
from transforms.evaluation.options import EvaluationOptions
from transforms.metrics import jnq as eval_jnq
from transforms.metrics import nlquad as eval_nlquad
from transforms.metrics import nq as eval_nq
from transforms.metrics import reqa as eval_reqa
from transforms.metrics.hints import (
    as_word_offsets,
    jnq_zero_hints,
    nlquad_zero_hints,
    nq_zero_hints,
    reqa_unknown_hints,
    unmatched_id_hints,
)


def evaluate_nq(options: EvaluationOptions) -> dict[str, Any]:
    """The official NQ metrics of the predictions (``--threshold``: 2 by default)."""
    gold_path = nq_gold_path(options.gold, options.split)
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
    data = load_json(options.predictions, "NQ predictions")
    try:
        predictions = eval_nq.predictions_from_json(data)
    except ValueError as err:
        raise EvaluationError(f"{options.predictions}: {err}") from err
    refuse_repeated(Counter(str(record["example_id"]) for record in data["predictions"]),
                    f"the NQ predictions ({options.predictions})", "example_id")
    root = Path(options.gold) / "nq_original"
    check_ids(predictions, gold, options.strict, hints=lambda: unmatched_id_hints(
        predictions, gold, other_splits(root if root.is_dir() else Path(options.gold),
                                        options.split, lambda d: eval_nq.read_gold(str(d)))))
    threshold = 2 if options.threshold is None else options.threshold
    result = eval_nq.nq_metrics(gold, predictions, min_non_null=threshold)
    if not result["long-best-threshold-f1"]:
        warn_hints("long-answer F1 is 0", nq_zero_hints(data["predictions"], gold, predictions,
                                                        threshold))
    return result


def legacy_tokenizer(name: str) -> eval_nlquad.Tokenizer:
    """The tokenizer of the published NLQuAD script's IoU: ``regex`` or NLTK's."""
    if name == "regex":
        return eval_nlquad.treebank_tokenize
    try:
        import nltk  # type: ignore[import-not-found]

        nltk.word_tokenize("probe.")
    except Exception as err:  # ImportError, or LookupError without the punkt data
        raise EvaluationError(f"--legacy-tokenizer nltk needs nltk and its punkt data: "
                              f"{err}") from err
    return nltk.word_tokenize


def evaluate_nlquad(options: EvaluationOptions) -> dict[str, Any]:
    """NLQuAD's EM, P, R, F1 and IoU (``transforms.metrics.nlquad``)."""
    if options.split and not Path(options.gold).is_dir():
        raise EvaluationError("--split needs --gold to be a release directory")
    try:
        gold = nlquad_gold(options.gold, options.split)
    except (ValueError, TypeError, AttributeError) as err:
        raise EvaluationError(f"bad NLQuAD gold {options.gold}: {err}") from err
    predictions = load_object(options.predictions, "NLQuAD predictions", "id")
    check_ids(predictions, gold, options.strict, hints=lambda: unmatched_id_hints(
        predictions, gold, other_splits(Path(options.gold), options.split, parquet_ids)))
    tokenize = legacy_tokenizer(options.legacy_tokenizer)
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
        warn_hints(f"F1 {result['f1']:.3f}, IoU {result['iou']:.3f}",
                   nlquad_zero_hints(predictions, result, as_words))
    return result


def evaluate_reqa(options: EvaluationOptions) -> dict[str, Any]:
    """ReQA's MRR and recall@N of the rankings, per sentence and per paragraph."""
    if options.split:
        raise EvaluationError("--split is not used for reqa: point --gold at the release "
                              "directory holding questions/ and candidates/")
    questions, paragraph_of, texts = reqa_gold(options.gold)
    raw = load_object(options.predictions, "ReQA rankings", "question id")
    rankings: dict[str, list[str]] = {}
    for qid, ranking in raw.items():
        if not isinstance(ranking, list):
            raise EvaluationError(f"{options.predictions}: the ranking of {qid} must be a list "
                                  f"of candidate ids")
        rankings[qid] = [str(c) for c in ranking]
    check_ids(rankings, questions, options.strict,
              hints=lambda: unmatched_id_hints(rankings, questions, questions=texts))
    result = eval_reqa.reqa_metrics(questions, rankings, paragraph_of)
    if result.get("n_unknown_candidate_ids"):
        warn(f"{result['n_unknown_candidate_ids']} ranked candidate ids are not in "
             f"candidates/ (counted as wrong)")
        warn_hints("ranked ids", reqa_unknown_hints(rankings, paragraph_of))
    return result


def evaluate_jnq(options: EvaluationOptions) -> dict[str, Any]:
    """JNQ's micro and macro paragraph P/R/F1."""
    gold = jnq_gold(options.gold, options.split)
    predictions = load_object(options.predictions, "JNQ predictions", "question id")
    gold_ids = {str(q) for q in gold}
    check_ids(predictions, gold_ids, options.strict, hints=lambda: unmatched_id_hints(
        predictions, gold_ids, other_splits(Path(options.gold), options.split, parquet_ids)))
    try:
        result = eval_jnq.jnq_metrics(gold, predictions)
    except ValueError as err:
        raise EvaluationError(str(err)) from err
    warn_hints("micro F1 is 0", jnq_zero_hints(gold, predictions, result))
    return result


EVALUATORS: dict[str, Callable[[EvaluationOptions], dict[str, Any]]] = {
    "nq": evaluate_nq, "nlquad": evaluate_nlquad, "reqa": evaluate_reqa, "jnq": evaluate_jnq}


#: task -> what its evaluator scores (``evaluate``'s help: "TASK scores ...")
ABOUT: dict[str, str] = {
    "nq": "long and short answers with the official nq_eval metrics",
    "nlquad": "answer spans (EM, precision, recall, F1 and IoU)",
    "reqa": "candidate rankings (MRR and recall@N, of sentences and of paragraphs)",
    "jnq": "answer paragraph ids (micro and macro precision, recall and F1)",
}


def evaluate(task: str, options: EvaluationOptions, verify: bool = True) -> dict[str, Any]:
    """Score ``task``: ``--gold`` resolved (``LATEST``) and, unless not ``verify``, checked
    against its manifest first (``DamagedReleaseError``), then read and scored."""
    return EVALUATORS[task](replace(options, gold=verified_gold(options.gold, verify)))

