"""Quality and speed of the JNQ/JBoolQ question filter (filters/jnq/rules.py). Not a test.

    python benchmarks/bench_jnq_filter.py [--shared ../shared/data/queries] [--repeat 5]

Quality, on the real Japanese question sets of ``../shared/data/queries/ja_*.tsv`` (JSQuAD,
JCommonsenseQA, JaQuAD, AIO 02 quiz, Mr. TyDi topics). They are written questions, not search
logs, so they measure the recall of the rules, not their precision. Per set, the share of
questions that pass the space rule, the length rule (8+ words, symbols not counted), each
pattern (computed on every question, whatever its length), the whole JNQ filter (JNQ §3.1),
the same with the extended pattern 3, and the JBoolQ rule (JBoolQ §4).

Speed, pinned to one core, on all questions of those sets: the whole filter (normalize_ja +
ja_tokens + select_jnq, then also select_jboolq) against bare fugashi tokenization of the same
questions (``tagger(q)``, the limit), as a ratio (target >= 0.5x); best of ``--repeat`` runs
with a warm token cache, plus the first (cold cache) run.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from filters.jnq.rules import (  # noqa: E402
    JNQ_MIN_WORDS,
    clear_token_cache,
    has_space,
    ja_tokens,
    jboolq_rule,
    make_tagger,
    normalize_ja,
    pattern_1,
    pattern_2,
    pattern_3,
    select_jboolq,
    select_jnq,
    word_count,
)

# file -> the question column (a header name, or an index for the header-less Mr. TyDi topics)
SETS: dict[str, tuple[str, str | int]] = {
    "JSQuAD valid": ("ja_jsquad_valid_v1.3_questions.tsv", "question"),
    "JCommonsenseQA valid": ("ja_jcommonsenseqa_valid_v1.3_questions.tsv", "question"),
    "JaQuAD dev": ("ja_jaquad_dev_questions.tsv", "question"),
    "AIO 02 dev quiz": ("ja_aio_02_dev_quiz.tsv", "original_question"),
    "Mr. TyDi ja test": ("ja_mrtydi_v1.1_test_topics.tsv", 1),
}


def read_questions(path: Path, column: str | int) -> list[str]:
    """Questions of one TSV (no quoting: JaQuAD questions contain bare double quotes)."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        if isinstance(column, str):
            index = next(rows).index(column)
        else:
            index = column
        return [row[index] for row in rows if len(row) > index and row[index].strip()]


def load_sets(shared: Path) -> dict[str, list[str]]:
    sets = {}
    for name, (filename, column) in SETS.items():
        path = shared / filename
        if path.is_file():
            sets[name] = read_questions(path, column)
        else:
            print(f"  (missing {path}: {name} skipped)")
    return sets


COLUMNS = ("no space", "8+ words", "p1", "p2", "p3", "p3 ext", "JNQ", "JNQ ext", "JBoolQ")


def measure(tagger, questions: list[str]) -> tuple[Counter, Counter]:
    """Counts per column, and the JNQ drop reasons."""
    counts: Counter = Counter()
    reasons: Counter = Counter()
    for question in questions:
        normalized = normalize_ja(question)
        tokens = ja_tokens(tagger, normalized)
        patterns, reason = select_jnq(normalized, tokens)
        reasons[reason or "accepted"] += 1
        checks = {
            "no space": not has_space(normalized),
            "8+ words": word_count(tokens) >= JNQ_MIN_WORDS,
            "p1": pattern_1(tokens),
            "p2": pattern_2(normalized),
            "p3": pattern_3(tokens),
            "p3 ext": pattern_3(tokens, extended=True),
            "JNQ": reason is None,
            "JNQ ext": select_jnq(normalized, tokens, extended=True)[1] is None,
            "JBoolQ": select_jboolq(normalized, tokens) is None,
        }
        counts.update(name for name, ok in checks.items() if ok)
        assert jboolq_rule(tokens, normalized) or not checks["JBoolQ"]
    return counts, reasons


def best_time(run: Callable[[], None], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def speed(tagger, questions: list[str], repeat: int) -> dict[str, float]:
    """Seconds for each variant over all questions."""

    def bare() -> None:
        for q in questions:
            tagger(q)

    def jnq() -> None:
        for q in questions:
            normalized = normalize_ja(q)
            select_jnq(normalized, ja_tokens(tagger, normalized))

    def jnq_jboolq() -> None:
        for q in questions:
            normalized = normalize_ja(q)
            tokens = ja_tokens(tagger, normalized)
            select_jnq(normalized, tokens)
            select_jboolq(normalized, tokens)

    normalized = [normalize_ja(q) for q in questions]
    tokens = [ja_tokens(tagger, n) for n in normalized]

    def normalize_only() -> None:
        for q in questions:
            normalize_ja(q)

    def tokens_only() -> None:
        for n in normalized:
            ja_tokens(tagger, n)

    def rules_only() -> None:
        for n, t in zip(normalized, tokens, strict=True):
            select_jnq(n, t)
            select_jboolq(n, t)

    clear_token_cache()
    bare()
    started = time.perf_counter()
    jnq()
    cold = time.perf_counter() - started
    times = {"cold": cold}
    for name, run in (("bare", bare), ("jnq", jnq), ("jnq_jboolq", jnq_jboolq),
                      ("normalize", normalize_only), ("tokens", tokens_only),
                      ("rules", rules_only)):
        times[name] = best_time(run, repeat)
    return times


def pin_one_core() -> str:
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned"
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared", default=str(ROOT.parent / "shared" / "data" / "queries"))
    parser.add_argument("--repeat", type=int, default=5, help="timed runs; the best is kept")
    args = parser.parse_args()
    shared = Path(args.shared)
    if not shared.is_dir() or not list(shared.glob("ja_*.tsv")):
        sys.exit(f"real Japanese question sets (ja_*.tsv) not found in {shared}; they live in "
                 "../shared/data/queries relative to the project root (see --shared)")
    try:
        tagger = make_tagger()
    except ImportError:
        sys.exit("fugashi and unidic-lite are needed: pip install fugashi unidic-lite")
    sets = load_sets(shared)
    if not sets:
        sys.exit(f"none of the expected ja_*.tsv files is in {shared}")

    print("JNQ/JBoolQ filter quality: share of real written questions passing each rule")
    header = f"  {'set':22s} {'n':>5s} " + " ".join(f"{c:>8s}" for c in COLUMNS)
    print(header)
    total: Counter = Counter()
    total_reasons: Counter = Counter()
    n_total = 0
    for name, questions in sets.items():
        counts, reasons = measure(tagger, questions)
        total.update(counts)
        total_reasons.update(reasons)
        n_total += len(questions)
        print(f"  {name:22s} {len(questions):5d} "
              + " ".join(f"{counts[c] / len(questions):8.1%}" for c in COLUMNS))
    print(f"  {'all':22s} {n_total:5d} "
          + " ".join(f"{total[c] / n_total:8.1%}" for c in COLUMNS))
    print("  JNQ outcome, all sets: " + ", ".join(
        f"{reason} {count}" for reason, count in total_reasons.most_common()))

    questions = [q for qs in sets.values() for q in qs]
    n = len(questions)
    print(f"Speed on {n} questions, {pin_one_core()}, best of {args.repeat}:")
    t = speed(tagger, questions, args.repeat)
    print(f"  bare fugashi tagger(q) (limit)       {n / t['bare']:9.0f} q/s")
    print(f"  JNQ filter (normalize+tokens+rules)  {n / t['jnq']:9.0f} q/s  "
          f"ratio {t['bare'] / t['jnq']:.2f}x (target >= 0.5x)")
    print(f"  JNQ + JBoolQ rules on same tokens    {n / t['jnq_jboolq']:9.0f} q/s  "
          f"ratio {t['bare'] / t['jnq_jboolq']:.2f}x")
    print(f"  JNQ filter, first run (cold cache)   {n / t['cold']:9.0f} q/s  "
          f"ratio {t['bare'] / t['cold']:.2f}x")
    per = 1e6 / n
    print(f"  per question: tagger {t['bare'] * per:.1f} us, normalize {t['normalize'] * per:.1f}"
          f" us, ja_tokens {t['tokens'] * per:.1f} us (tagger included), JNQ+JBoolQ rules "
          f"{t['rules'] * per:.1f} us")
    print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
