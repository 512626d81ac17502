"""NLQuAD metrics (Soleimani, Monz, Worring, EACL 2021, §5.1): EM, P, R, F1 and IoU.

EM, precision, recall and F1 compare the bag of words of the predicted and the gold answer
after SQuAD normalization (lower case, punctuation and the articles a/an/the removed,
whitespace collapsed); an empty side scores 1 if both are empty, else 0. IoU, the paper's
answer-position metric, is ``|p ∩ t| / |p ∪ t|`` of the predicted and target *word intervals*.
Each metric is averaged over the questions (fractions in [0, 1]; the paper prints percents).

Two IoUs are computed:

``iou`` — ours, by offsets. The gold interval comes from the gold's offsets
(``answer_word_start/answer_word_end`` of our release, which index ``context.split()``, or the
words overlapping ``[answer_start, answer_end)``); the predicted one from the prediction's
character or word offsets. A prediction given only as text is located at its first exact
occurrence in the context (else as a word sequence of ``context.split()``); ambiguous and
unlocated text predictions are counted, so give offsets when you have them.

``iou_legacy`` — what the published script (``Evaluation_Metrics/evaluation_metrics.py`` of the
NLQuAD repository) computes. It never uses offsets: it word-tokenizes and lower-cases the
context, the gold and the prediction (NLTK ``word_tokenize``), joins the tokens with spaces and
*searches* each answer string in the context string: the start is the **first** occurrence
(``str.find``) and the end is the end of the **last** occurrence (``find`` on the reversed
strings). IoU is then the token count of the text between the first and last character of the
intersection over that of the union, and a 0 is retried with the prediction's last 5
characters cut off (the copy in the repository's ``BERT/nlquad_metrics.py`` tries more cuts; we
follow the standalone script). Where they differ:

* **repeated substrings** (the main difference): a predicted or gold string that occurs more
  than once in the context is stretched by the legacy IoU from its first occurrence to the end
  of its last one, wherever the system (or the gold) actually put it. Only the start follows
  the "first occurrence" rule; the end follows the last occurrence;
* tokens: the legacy IoU counts NLTK tokens (punctuation and clitics separate), ours counts
  whitespace words of the context, which the release's ``answer_word_*`` offsets index;
* ``str.find`` also matches inside words ("he" is found in "the"), a 0 gets the truncated
  retry, and a pair of answers that are both absent (or empty) scores 1.

They agree when both answers occur once, on word boundaries, with the same token counts. The
repeated case, worked through (a test checks these numbers):

    context    = "the storm hit the coast then the storm moved inland"
    word          0   1     2   3   4     5    6   7     8     9
    gold       = "the storm moved inland"              words [6, 10)
    prediction = "the storm", offsets of words [6, 8)   (inside the gold)

    iou        = |[6,8) ∩ [6,10)| / |[6,8) ∪ [6,10)| = 2 / 4 = 0.5
    iou_legacy : "the storm" is found at word 0 (first occurrence) and ends at word 8 (end of
                 the last occurrence), so the prediction becomes words [0, 8);
                 |[0,8) ∩ [6,10)| / |[0,10)| = 2 / 10 = 0.2

A prediction "the storm" at words [0, 2), entirely outside the gold, gets ``iou`` 0.0 but
``iou_legacy`` 0.2 too: string search cannot tell the two occurrences apart and scores the
right and the wrong location alike. NLTK is not a dependency: the legacy IoU tokenizes with
:func:`treebank_tokenize`, a regex approximation of ``word_tokenize`` (words, contractions and
punctuation as separate tokens); pass ``tokenize=nltk.word_tokenize`` (CLI:
``--legacy-tokenizer nltk``) to tokenize as the published script does.
"""

from __future__ import annotations

import bisect
import collections
import re
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Tokenizer = Callable[[str], list[str]]

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCTUATION = str.maketrans("", "", string.punctuation)
_TREEBANK = re.compile(
    r"n't\b|'(?:s|m|d|ll|re|ve)\b|\w+(?=n't\b)|\w+(?:[-.]\w+)*|\.\.\.|--|[^\w\s]",
    re.IGNORECASE | re.UNICODE)


def normalize_answer(text: str) -> str:
    """SQuAD v1.1 normalization: lower case, no punctuation, no articles, single spaces."""
    text = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def answer_tokens(text: str) -> list[str]:
    return normalize_answer(text).split() if text else []


def exact_match(gold: str, prediction: str) -> float:
    """1.0 iff the normalized answers are equal."""
    return float(normalize_answer(gold) == normalize_answer(prediction))


def precision_recall_f1(gold: str, prediction: str) -> tuple[float, float, float]:
    """Bag-of-words precision, recall and F1 of the normalized answers (SQuAD's F1)."""
    return tokens_precision_recall_f1(answer_tokens(gold), answer_tokens(prediction))


def tokens_precision_recall_f1(gold_tokens: list[str], pred_tokens: list[str]
                               ) -> tuple[float, float, float]:
    """``precision_recall_f1`` of answers already normalized (``answer_tokens``): a gold
    answer scored against several predictions is normalized once."""
    if not gold_tokens or not pred_tokens:
        agree = float(gold_tokens == pred_tokens)
        return agree, agree, agree
    same = sum((collections.Counter(gold_tokens) & collections.Counter(pred_tokens)).values())
    if not same:
        return 0.0, 0.0, 0.0
    precision, recall = same / len(pred_tokens), same / len(gold_tokens)
    return precision, recall, 2 * precision * recall / (precision + recall)


# ---------------------------------------------------------------------------------------------
# Offset IoU


def word_spans(context: str) -> list[tuple[int, int]]:
    """Character span of each word of ``context.split()``."""
    return [match.span() for match in re.finditer(r"\S+", context)]


def char_to_word_interval(spans: Sequence[tuple[int, int]], start: int, end: int
                          ) -> tuple[int, int]:
    """The words overlapping ``[start, end)`` as ``[first, last + 1)`` (empty: ``(i, i)``)."""
    ends = [e for _, e in spans]
    first = bisect.bisect_right(ends, start)  # first word ending after start
    last = first
    while last < len(spans) and spans[last][0] < end:
        last += 1
    return (first, max(first, last)) if end > start else (first, first)


def interval_iou(predicted: tuple[int, int], gold: tuple[int, int]) -> float:
    """``|p ∩ t| / |p ∪ t|`` of two half-open intervals; 1.0 when both are empty."""
    p_len, g_len = max(0, predicted[1] - predicted[0]), max(0, gold[1] - gold[0])
    inter = max(0, min(predicted[1], gold[1]) - max(predicted[0], gold[0]))
    union = p_len + g_len - inter
    return inter / union if union else 1.0


def offset_iou(context: str, predicted: tuple[int, int], gold: tuple[int, int],
               unit: str = "char") -> float:
    """IoU of word intervals given by character (``unit="char"``) or word offsets."""
    if unit == "word":
        return interval_iou(predicted, gold)
    if unit != "char":
        raise ValueError(f"unit must be 'char' or 'word', not {unit!r}")
    spans = word_spans(context)
    return interval_iou(char_to_word_interval(spans, *predicted),
                        char_to_word_interval(spans, *gold))


# ---------------------------------------------------------------------------------------------
# The published script's string-search IoU


def treebank_tokenize(text: str) -> list[str]:
    """A regex approximation of NLTK's ``word_tokenize`` (no sentence splitting)."""
    return _TREEBANK.findall(text)


def _search_span(text: str, answer: str) -> tuple[int, int] | None:
    """Characters from the first occurrence's start to the last occurrence's end (or None)."""
    if not answer:
        return None
    start = text.find(answer)
    if start == -1:
        return None
    return start, len(text) - text[::-1].find(answer[::-1])


def _legacy_once(context: str, gold: str, prediction: str, tokenize: Tokenizer) -> float:
    text = " ".join(tokenize(context)).lower()
    spans = [span for span in (_search_span(text, " ".join(tokenize(gold)).lower()),
                               _search_span(text, " ".join(tokenize(prediction)).lower()))
             if span is not None]
    inter_words = union_words = 0
    if spans:  # the script slices text from the first to the last position of each set
        union_words = len(tokenize(text[min(s for s, _ in spans):max(e for _, e in spans)]))
    if len(spans) == 2:
        start, end = max(s for s, _ in spans), min(e for _, e in spans)
        inter_words = len(tokenize(text[start:end])) if start < end else 0
    if inter_words == 0 and union_words == 0:
        return 1.0
    return inter_words / union_words


def legacy_iou(context: str, gold: str, prediction: str,
               tokenize: Tokenizer = treebank_tokenize, retry_truncated: bool = True) -> float:
    """The NLQuAD script's ``Jaccard_index`` (string search; see the module docstring).

    ``prediction`` is stripped as the script does; a 0 is retried with ``prediction[:-5]``.
    """
    prediction = prediction.strip()
    score = _legacy_once(context, gold, prediction, tokenize)
    if score == 0 and retry_truncated:
        score = _legacy_once(context, gold, prediction[:-5], tokenize)
    return score


# ---------------------------------------------------------------------------------------------
# Gold, predictions and the dataset average


@dataclass(frozen=True)
class NlquadGold:
    """One question's context and gold answer with character and word offsets."""

    id: str
    context: str
    answer_text: str
    answer_start: int
    answer_end: int
    answer_word_start: int | None = None
    answer_word_end: int | None = None

    def word_interval(self, spans: Sequence[tuple[int, int]] | None = None) -> tuple[int, int]:
        if self.answer_word_start is not None and self.answer_word_end is not None:
            return self.answer_word_start, self.answer_word_end
        spans = word_spans(self.context) if spans is None else spans
        return char_to_word_interval(spans, self.answer_start, self.answer_end)


def gold_from_rows(rows: Iterable[Mapping[str, Any]]) -> dict[str, NlquadGold]:
    """Gold of our release rows (``id, context, answer_text, answer_start, answer_end`` and
    optionally ``answer_word_start, answer_word_end``)."""
    gold = {}
    for row in rows:
        missing = [k for k in ("id", "context", "answer_text", "answer_start", "answer_end")
                   if row.get(k) is None]
        if missing:
            raise ValueError(f"NLQuAD gold row {row.get('id')!r} lacks {', '.join(missing)}")
        gold[str(row["id"])] = NlquadGold(
            str(row["id"]), row["context"], row["answer_text"], int(row["answer_start"]),
            int(row["answer_end"]),
            None if row.get("answer_word_start") is None else int(row["answer_word_start"]),
            None if row.get("answer_word_end") is None else int(row["answer_word_end"]))
    return gold


def gold_from_squad(data: Mapping[str, Any]) -> dict[str, NlquadGold]:
    """Gold of NLQuAD's SQuAD-like JSON (``{"data": [{"paragraphs": [{"context", "qas"}]}]}``;
    the first answer of each question; ``answer_end`` defaults to start + len(text))."""
    if not isinstance(data, Mapping) or not isinstance(data.get("data"), list):
        raise ValueError('NLQuAD SQuAD-like gold must be a JSON object {"data": [...]}')
    rows = []
    for article in data["data"]:
        for paragraph in article.get("paragraphs", []):
            for qa in paragraph.get("qas", []):
                answers = qa.get("answers") or []
                if not answers:
                    raise ValueError(f"NLQuAD question {qa.get('id')!r} has no answer")
                answer = answers[0]
                start = answer.get("answer_start")
                end = answer.get("answer_end")
                if end is None and start is not None:
                    end = start + len(answer.get("text", ""))
                rows.append({"id": qa.get("id"), "context": paragraph.get("context"),
                             "answer_text": answer.get("text"), "answer_start": start,
                             "answer_end": end})
    return gold_from_rows(rows)


@dataclass(frozen=True)
class LocatedPrediction:
    """A prediction's text and its word interval (None: a text that was not found)."""

    text: str
    interval: tuple[int, int] | None
    occurrences: int = 1


def _int_field(prediction: Mapping[str, Any], key: str) -> int:
    value = prediction.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key} must be an integer, got {value!r}")
    return value


def locate_prediction(gold: NlquadGold, prediction: str | Mapping[str, Any],
                      spans: Sequence[tuple[int, int]] | None = None) -> LocatedPrediction:
    """Text and word interval of ``"text"``, ``{answer_start, answer_end}`` (characters) or
    ``{answer_word_start, answer_word_end}`` (indices of ``context.split()``)."""
    context = gold.context
    spans = word_spans(context) if spans is None else spans
    if isinstance(prediction, str):
        return _locate_text(context, prediction, spans)
    if not isinstance(prediction, Mapping):
        raise ValueError(f"a prediction is a string or an offsets object, not {prediction!r}")
    if "answer_start" in prediction or "answer_end" in prediction:
        start, end = _int_field(prediction, "answer_start"), _int_field(prediction, "answer_end")
        if not 0 <= start <= end <= len(context):
            raise ValueError(f"character offsets [{start}, {end}) outside the context "
                             f"(length {len(context)})")
        return LocatedPrediction(context[start:end], char_to_word_interval(spans, start, end))
    if "answer_word_start" in prediction or "answer_word_end" in prediction:
        start = _int_field(prediction, "answer_word_start")
        end = _int_field(prediction, "answer_word_end")
        if not 0 <= start <= end <= len(spans):
            raise ValueError(f"word offsets [{start}, {end}) outside the context "
                             f"({len(spans)} words)")
        text = context[spans[start][0]:spans[end - 1][1]] if end > start else ""
        return LocatedPrediction(text, (start, end))
    raise ValueError("an offsets prediction needs answer_start/answer_end or "
                     "answer_word_start/answer_word_end")


def _locate_text(context: str, text: str, spans: Sequence[tuple[int, int]]
                 ) -> LocatedPrediction:
    needle = text.strip()
    if not needle:
        return LocatedPrediction(text, (0, 0), 0)
    start = context.find(needle)
    if start >= 0:
        occurrences = context.count(needle)
        return LocatedPrediction(text, char_to_word_interval(spans, start, start + len(needle)),
                                 occurrences)
    words, context_words = needle.split(), [context[s:e] for s, e in spans]
    hits = [i for i in range(len(context_words) - len(words) + 1)
            if context_words[i:i + len(words)] == words]
    if hits:
        return LocatedPrediction(text, (hits[0], hits[0] + len(words)), len(hits))
    return LocatedPrediction(text, None, 0)


def score_prediction(gold: NlquadGold, prediction: str | Mapping[str, Any] | LocatedPrediction,
                     tokenize: Tokenizer = treebank_tokenize,
                     spans: Sequence[tuple[int, int]] | None = None) -> dict[str, float]:
    """EM, precision, recall, F1, ``iou`` (offsets) and ``iou_legacy`` of one question."""
    spans = word_spans(gold.context) if spans is None else spans
    located = (prediction if isinstance(prediction, LocatedPrediction)
               else locate_prediction(gold, prediction, spans))
    precision, recall, f1 = precision_recall_f1(gold.answer_text, located.text)
    iou = 0.0 if located.interval is None else interval_iou(located.interval,
                                                            gold.word_interval(spans))
    return {"exact_match": exact_match(gold.answer_text, located.text), "precision": precision,
            "recall": recall, "f1": f1, "iou": iou,
            "iou_legacy": legacy_iou(gold.context, gold.answer_text, located.text, tokenize)}


METRICS = ("exact_match", "precision", "recall", "f1", "iou", "iou_legacy")


def nlquad_metrics(gold: Mapping[str, NlquadGold],
                   predictions: Mapping[str, str | Mapping[str, Any]],
                   tokenize: Tokenizer = treebank_tokenize) -> dict[str, float | int]:
    """Mean of each metric over all gold questions (a missing prediction is the empty answer,
    scoring 0), plus counts: ``n``, ``n_missing_predictions``, ``n_unknown_prediction_ids``,
    ``n_ambiguous_text_predictions`` (text found more than once: ``iou`` used the first) and
    ``n_unlocated_text_predictions`` (text not in the context: ``iou`` 0)."""
    totals = dict.fromkeys(METRICS, 0.0)
    missing = ambiguous = unlocated = 0
    for question_id, item in gold.items():
        prediction = predictions.get(question_id)
        if prediction is None:
            missing += 1
            prediction = {"answer_start": 0, "answer_end": 0}
        spans = word_spans(item.context)
        try:
            located = locate_prediction(item, prediction, spans)
        except ValueError as err:
            raise ValueError(f"prediction {question_id}: {err}") from err
        if isinstance(prediction, str):
            ambiguous += located.occurrences > 1
            unlocated += located.interval is None
        scores = score_prediction(item, located, tokenize, spans)
        for metric in METRICS:
            totals[metric] += scores[metric]
    n = len(gold)
    result: dict[str, float | int] = {m: (totals[m] / n if n else 0.0) for m in METRICS}
    result.update(n=n, n_missing_predictions=missing,
                  n_unknown_prediction_ids=len(set(predictions) - set(gold)),
                  n_ambiguous_text_predictions=ambiguous, n_unlocated_text_predictions=unlocated)
    return result
