"""The figures the papers give about their annotations, computed on an annotated release.

* NQ (Kwiatkowski et al. 2019): the share of annotations with a long and with a short answer
  (§3.3: 49% / 36%), the long-answer types (§3.3), for k-way examples the distribution of
  mu, the share of non-null long answers (§4.4), and how much of the non-null long answers
  the most popular and the two most popular long answers cover (§4.4: 83% / 96%).
* JNQ (Uematsu et al.): Table 2 (paragraphs by EXIST / AMBIGUOUS / NONE x short answer
  type), Table 3 (long answers per question) and Table 1's lengths in characters.

:func:`quality_tables_markdown` renders them for the data card, the paper's figures beside
ours where the paper gives them.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from filters.annotation.nq import LONG_ANSWER_TYPES

LONG_ANSWER_TYPE_NAMES = ("paragraph", "table", "table_row", "list", "list_item", "other")
MU_BINS = ("0.0-0.2", "0.2-0.4", "0.4-0.6", "0.6-0.8", "0.8-1.0")
NQ_PAPER = {"long_answer_share": 0.49, "short_answer_share": 0.36,
            "top1": 0.83, "top2": 0.96}
JNQ_LABELS = ("EXIST", "AMBIGUOUS", "NONE")
SHORT_ANSWER_TYPES = ("span", "yes_no", "none")
MAX_LONG_ANSWERS = 5


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def _items(record: Mapping[str, Any], name: str) -> list[Any]:
    """A list column (a list, an array or None) as a list."""
    value = record.get(name)
    return [] if value is None else list(value)


def _has_long(annotation: Mapping[str, Any]) -> bool:
    return annotation["long_answer"]["start_token"] >= 0


def _has_short(annotation: Mapping[str, Any]) -> bool:
    return bool(annotation.get("short_answers")) or annotation.get("yes_no_answer",
                                                                   "NONE") != "NONE"


def long_answer_type(tokens: Sequence[Mapping[str, Any]], start_token: int) -> str:
    """The type of a long answer from the HTML token it starts with (NQ §3.3): paragraph
    ``<P>``, table ``<Table>``, table_row ``<Tr>``, list ``<Ul>/<Ol>/<Dl>``, list_item
    ``<Li>/<Dd>/<Dt>``, else other."""
    if not 0 <= start_token < len(tokens):
        return "other"
    return LONG_ANSWER_TYPES.get(tokens[start_token]["token"], "other")


def _mu_bin(non_null: int, ways: int) -> str:
    return MU_BINS[min(len(MU_BINS) * non_null // ways, len(MU_BINS) - 1)]


def nq_quality(examples: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """NQ's annotation figures over annotated NQ original-format examples.

    Keys: ``examples``, ``annotations``, ``ways`` ({k: examples with k annotations});
    ``long_answer_share`` and ``short_answer_share`` over annotations (§3.3; short = short
    answer spans or YES/NO), ``one_way`` the same per example over 1-way examples;
    ``long_answer_types`` over non-null long answers; for examples with k >= 2 annotations
    ``k_way_examples``, ``mu_histogram`` ({bin: examples}, bins of 0.2, the last closed, §4.4)
    and ``top_long_answer_coverage`` ({"top1", "top2"}: the share of the non-null long answers
    of the k-way examples with one that equal the most popular / one of the two most popular
    long answers of their example, §4.4); ``yes_no`` ({"YES", "NO"} annotations). An
    annotation may carry its ``long_answer_type`` (then ``document_tokens`` is not needed)."""
    ways: Counter[int] = Counter()
    types = dict.fromkeys(LONG_ANSWER_TYPE_NAMES, 0)
    mu = dict.fromkeys(MU_BINS, 0)
    yes_no = {"YES": 0, "NO": 0}
    n_examples = n_annotations = n_long = n_short = 0
    one_way = one_way_long = one_way_short = 0
    k_way = covered_non_null = top1 = top2 = 0
    for example in examples:
        annotations = _items(example, "annotations")
        tokens = _items(example, "document_tokens")
        n_examples += 1
        ways[len(annotations)] += 1
        n_annotations += len(annotations)
        long_spans: Counter[tuple[int, int]] = Counter()
        for annotation in annotations:
            if _has_long(annotation):
                long_answer = annotation["long_answer"]
                n_long += 1
                types[annotation.get("long_answer_type")
                      or long_answer_type(tokens, long_answer["start_token"])] += 1
                long_spans[(long_answer["start_token"], long_answer["end_token"])] += 1
            n_short += _has_short(annotation)
            if annotation.get("yes_no_answer") in yes_no:
                yes_no[annotation["yes_no_answer"]] += 1
        if len(annotations) == 1:
            one_way += 1
            one_way_long += _has_long(annotations[0])
            one_way_short += _has_short(annotations[0])
        elif len(annotations) >= 2:
            k_way += 1
            non_null = sum(long_spans.values())
            mu[_mu_bin(non_null, len(annotations))] += 1
            if non_null:
                popular = [count for _, count in long_spans.most_common(2)]
                covered_non_null += non_null
                top1 += popular[0]
                top2 += sum(popular)
    return {
        "examples": n_examples,
        "annotations": n_annotations,
        "ways": dict(sorted(ways.items())),
        "long_answer_share": _share(n_long, n_annotations),
        "short_answer_share": _share(n_short, n_annotations),
        "one_way": {"examples": one_way,
                    "long_answer_share": _share(one_way_long, one_way),
                    "short_answer_share": _share(one_way_short, one_way)},
        "long_answer_types": types,
        "k_way_examples": k_way,
        "mu_histogram": mu,
        "top_long_answer_coverage": {"top1": _share(top1, covered_non_null),
                                     "top2": _share(top2, covered_non_null)},
        "yes_no": yes_no,
    }


def _summary(values: list[int]) -> dict[str, float | int]:
    if not values:
        return {"count": 0, "mean": 0.0, "median": 0.0}
    return {"count": len(values), "mean": statistics.fmean(values),
            "median": float(statistics.median(values))}


def _span_chars(annotation: Mapping[str, Any]) -> int:
    start, end = annotation.get("span_start", -1), annotation.get("span_end", -1)
    if start is not None and end is not None and 0 <= start < end:
        return end - start
    return len(annotation.get("span_text") or "")


def jnq_quality(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """JNQ's annotation tables over annotated JNQ / JBoolQ rows.

    Keys: ``questions``, ``yes_no_questions``; ``table2`` ({label: {short answer type:
    paragraphs}} over the judged candidate paragraphs, JNQ Table 2); ``table3`` ({n: questions
    with n EXIST paragraphs}, n = 0..5, JNQ Table 3); ``table1`` (count / mean / median
    characters of ``question``, ``paragraph`` (the candidate paragraphs) and ``span`` (the
    short-answer spans), JNQ Table 1); ``yes_no`` ({"YES", "NO"} EXIST paragraphs)."""
    table2 = {label: dict.fromkeys(SHORT_ANSWER_TYPES, 0) for label in JNQ_LABELS}
    table3 = dict.fromkeys(range(MAX_LONG_ANSWERS + 1), 0)
    questions = yes_no_questions = 0
    yes_no = {"YES": 0, "NO": 0}
    question_chars: list[int] = []
    paragraph_chars: list[int] = []
    span_chars: list[int] = []
    for row in rows:
        questions += 1
        yes_no_questions += bool(row.get("is_yes_no_question"))
        question_chars.append(len(row["question"]))
        texts = {int(p["id"]): p["text"] or "" for p in _items(row, "paragraphs")}
        paragraph_chars += [len(texts[int(pid)]) for pid in _items(row, "candidate_paragraph_ids")
                            if int(pid) in texts]
        annotations = _items(row, "annotations")
        for annotation in annotations:
            kind = annotation.get("short_answer_type") or "none"
            table2[annotation["label"]][kind] += 1
            if kind == "span":
                span_chars.append(_span_chars(annotation))
            if annotation["label"] == "EXIST" and annotation.get("yes_no_answer") in yes_no:
                yes_no[annotation["yes_no_answer"]] += 1
        gold = row.get("gold_paragraph_ids")
        if gold is None:
            gold = [a for a in annotations if a["label"] == "EXIST"]
        table3[min(len(gold), MAX_LONG_ANSWERS)] += 1
    return {
        "questions": questions,
        "yes_no_questions": yes_no_questions,
        "table1": {"question": _summary(question_chars), "paragraph": _summary(paragraph_chars),
                   "span": _summary(span_chars)},
        "table2": table2,
        "table3": table3,
        "yes_no": yes_no,
    }


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _nq_markdown(quality: Mapping[str, Any]) -> list[str]:
    """NQ §3.3's 49% / 36% are shares of the 1-way training examples; ours are beside them,
    and the shares over all annotations (k-way included) below them."""
    coverage = quality["top_long_answer_coverage"]
    one_way = quality["one_way"]
    ways = ", ".join(f"{k}-way: {n}" if int(k) else f"not annotated: {n}"
                     for k, n in quality["ways"].items())
    overview = [
        ("Examples", quality["examples"], ""),
        ("Annotations", quality["annotations"], ""),
        ("Ways", ways or "-", ""),
        ("1-way examples with a long answer", _percent(one_way["long_answer_share"]),
         f"{NQ_PAPER['long_answer_share']:.0%} (§3.3)"),
        ("1-way examples with a short answer", _percent(one_way["short_answer_share"]),
         f"{NQ_PAPER['short_answer_share']:.0%} (§3.3)"),
        ("All annotations with a long answer", _percent(quality["long_answer_share"]), ""),
        ("All annotations with a short answer", _percent(quality["short_answer_share"]), ""),
        ("Non-null long answers covered by the most popular one (k-way)",
         _percent(coverage["top1"]), f"{NQ_PAPER['top1']:.0%} (§4.4)"),
        ("... by the two most popular (k-way)", _percent(coverage["top2"]),
         f"{NQ_PAPER['top2']:.0%} (§4.4)"),
        ("YES / NO answers", f"{quality['yes_no']['YES']} / {quality['yes_no']['NO']}", ""),
    ]
    types = quality["long_answer_types"]
    total_types = sum(types.values())
    mu = quality["mu_histogram"]
    return [
        _table(("Figure", "Ours", "NQ paper"), overview),
        _table(("Long answer type", "Annotations", "Share"),
               [(name, count, _percent(_share(count, total_types)))
                for name, count in types.items()]),
        _table(("μ (share of non-null long answers, k-way)", "Examples", "Share"),
               [(label, count, _percent(_share(count, quality["k_way_examples"])))
                for label, count in mu.items()]),
    ]


def _jnq_markdown(quality: Mapping[str, Any]) -> list[str]:
    table2 = quality["table2"]
    table3 = quality["table3"]
    lengths = quality["table1"]
    return [
        _table(("Paragraphs (Table 2)", "span", "yes/no", "none", "total"),
               [(label, *(counts[kind] for kind in SHORT_ANSWER_TYPES), sum(counts.values()))
                for label, counts in table2.items()]),
        _table(("Long answers per question (Table 3)", "Questions", "Share"),
               [(n, count, _percent(_share(count, quality["questions"])))
                for n, count in table3.items()]),
        _table(("Characters (Table 1)", "Count", "Mean", "Median"),
               [(name, s["count"], f"{s['mean']:.1f}", f"{s['median']:.1f}")
                for name, s in lengths.items()]),
    ]


def quality_tables_markdown(nq_or_jnq: str, quality: Mapping[str, Any]) -> str:
    """Markdown tables of :func:`nq_quality` (``"nq"``) or :func:`jnq_quality` (``"jnq"`` or
    ``"jboolq"``) for the data card."""
    if nq_or_jnq == "nq":
        tables = _nq_markdown(quality)
    elif nq_or_jnq in ("jnq", "jboolq"):
        tables = _jnq_markdown(quality)
    else:
        raise ValueError(f"quality tables are for nq, jnq or jboolq, not {nq_or_jnq!r}")
    return "\n\n".join(tables) + "\n"
