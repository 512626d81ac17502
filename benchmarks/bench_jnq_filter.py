"""Quality and speed of the JNQ/JBoolQ question filter (filters/jnq/rules.py). Not a test.

    python benchmarks/bench_jnq_filter.py [--shared ../shared/data/queries] [--rounds 7]
                                          [--mix-factor 4]

Quality, on the real Japanese question sets of ``../shared/data/queries/ja_*.tsv`` (JSQuAD,
JCommonsenseQA, JaQuAD, AIO 02 quiz, Mr. TyDi topics). They are written questions, not search
logs, so they measure the recall of the rules, not their precision. Per set, the share of
questions that pass the space rule, the length rule (8+ words, symbols not counted), each
pattern (computed on every question, whatever its length), the whole JNQ filter (JNQ §3.1),
the same with the extended pattern 3, and the JBoolQ rule (JBoolQ §4).

Speed, pinned to one core, on two workloads:

* ``questions``: all questions of those sets (11,220);
* ``log mix``: a log-like mix where those questions are the minority (1 in ``1 + mix-factor``,
  20% by default) and the rest is generated (seeded, reproducible): half spaced keyword queries
  (2-4 keywords joined by a half- or full-width space), half keyword-style queries without a
  space (1-3 keywords run together, 2 in 5 with a search suffix such as 天気, 価格, おすすめ,
  使い方, 意味, とは). Keywords are the nouns (2+ characters) of the shared questions.

Rows, each a full pass over the workload, interleaved over ``--rounds`` rounds (best time kept,
so load from other processes counts as little as possible):

* ``bare fugashi tagger(q)``: the limit, tagging every query and nothing else;
* ``JNQ filter``: ``normalize_ja`` + ``QuestionFilter`` (the filter's entry point, meant for
  ``SelectJapaneseQuestions``: the string checks, then tokens for candidates only), and the
  same for JBoolQ;
* ``JNQ filter, reference``: ``normalize_ja`` + ``reference_decision`` (the filter before the
  string checks: every query that passes the space and length checks is tagged through fugashi
  nodes and all rules run);
* the first run of the JNQ filter (cold token cache);
* ``segmentation floor``: ``normalize_ja`` + ``cheap_rejection``, then MeCab's ``-Owakati``
  output (segmentation only, no features) for every query that is not too long or spaced: what
  any filter that must give each of those queries its word count pays at least.

Each row prints queries/s, its ratio to bare fugashi (targets: >= 0.8x on ``questions``,
>= 2x on ``log mix``) and the peak memory Python allocates during one pass (tracemalloc, a
separate untimed pass, warm caches); the process' peak RSS, and its RSS and PSS (dictionary
mappings counted once) are printed at the end. Every decision of the
filter is checked against the reference on both workloads before timing.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import resource
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from filters.jnq.rules import (  # noqa: E402
    JNQ_MIN_WORDS,
    QuestionFilter,
    cheap_rejection,
    clear_token_cache,
    has_space,
    ja_tokens,
    jboolq_rule,
    make_tagger,
    normalize_ja,
    pattern_1,
    pattern_2,
    pattern_3,
    reference_decision,
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


SUFFIXES = ("天気", "価格", "口コミ", "おすすめ", "比較", "評判", "ランキング", "通販",
            "営業時間", "アクセス", "2024", "最新", "動画", "画像", "地図", "求人", "使い方",
            "意味", "とは", "料金")


def keywords(tagger, questions: list[str]) -> list[str]:
    """Nouns of 2+ characters in the questions (common and proper), in first-seen order."""
    seen: dict[str, None] = {}
    for question in questions:
        for token in ja_tokens(tagger, normalize_ja(question)):
            if (token.pos1 == "名詞" and token.pos2 in ("普通名詞", "固有名詞")
                    and len(token.surface) >= 2):
                seen.setdefault(token.surface, None)
    return list(seen)


def log_mix(questions: list[str], words: list[str], factor: int, seed: int = 15) -> list[str]:
    """The questions plus ``factor`` generated queries per question, shuffled: half spaced
    keyword queries, half keyword-style queries without spaces (see the module docstring)."""
    rng = random.Random(seed)
    generated = []
    for i in range(factor * len(questions)):
        if i % 2 == 0:
            space = " " if rng.random() < 0.7 else "\u3000"
            generated.append(space.join(rng.sample(words, rng.randint(2, 4))))
        else:
            query = "".join(rng.sample(words, rng.randint(1, 3)))
            if rng.random() < 0.4:
                query += rng.choice(SUFFIXES)
            generated.append(query)
    mix = questions + generated
    rng.shuffle(mix)
    return mix


def check_decisions(analyzer, queries: list[str]) -> int:
    """Decisions of ``QuestionFilter`` against ``reference_decision``, JNQ and JBoolQ, default
    and extended/count-symbols options; returns how many were compared (raises on the first
    difference)."""
    configs = [("jnq", False, False), ("jnq", False, True), ("jnq", True, False),
               ("jboolq", False, False), ("jboolq", True, False)]
    for variant, count_symbols, extended in configs:
        fast = QuestionFilter(variant, count_symbols, extended, analyzer)
        for query in queries:
            normalized = normalize_ja(query)
            expected = reference_decision(analyzer, normalized, variant, count_symbols, extended)
            got = fast(normalized)
            if got != expected:
                raise AssertionError(f"{variant} {query!r}: {got} != reference {expected}")
    return len(configs) * len(queries)


def variants(analyzer, queries: list[str]) -> dict[str, Callable[[], None]]:
    tagger = analyzer.tagger
    jnq = QuestionFilter("jnq", analyzer=analyzer)
    jboolq = QuestionFilter("jboolq", analyzer=analyzer)

    def bare() -> None:
        for q in queries:
            tagger(q)

    def jnq_filter() -> None:
        for q in queries:
            jnq(normalize_ja(q))

    def jboolq_filter() -> None:
        for q in queries:
            jboolq(normalize_ja(q))

    def reference() -> None:
        for q in queries:
            reference_decision(tagger, normalize_ja(q))

    segment = type(tagger)("-Owakati").parse

    def floor() -> None:
        for q in queries:
            normalized = normalize_ja(q)
            if not cheap_rejection(normalized):
                segment(normalized)

    return {"bare": bare, "jnq": jnq_filter, "jboolq": jboolq_filter, "reference": reference,
            "floor": floor}


def speed(analyzer, queries: list[str], rounds: int) -> tuple[dict[str, float], dict[str, int]]:
    """Best seconds per row over interleaved rounds (plus the cold first JNQ run), and the
    tracemalloc peak bytes of one pass per row."""
    runs = variants(analyzer, queries)
    clear_token_cache()
    runs["bare"]()
    started = time.perf_counter()
    runs["jnq"]()
    times = {"cold": time.perf_counter() - started}
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            samples[name].append(time.perf_counter() - started)
    times.update({name: min(values) for name, values in samples.items()})
    times["ratio_median"] = statistics.median(
        b / j for b, j in zip(samples["bare"], samples["jnq"], strict=True))
    peaks = {}
    for name, run in runs.items():
        tracemalloc.start()
        run()
        peaks[name] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return times, peaks


def report(label: str, queries: list[str], analyzer, rounds: int, target: float) -> None:
    n = len(queries)
    print(f"Speed on {label}: {n} queries, best of {rounds} interleaved rounds")
    t, peaks = speed(analyzer, queries, rounds)
    rows = (("bare fugashi tagger(q) (limit)", "bare"),
            ("JNQ filter (normalize + QuestionFilter)", "jnq"),
            ("JBoolQ filter (same, variant jboolq)", "jboolq"),
            ("JNQ filter, reference (before)", "reference"),
            ("segmentation floor (normalize + -Owakati)", "floor"))
    for title, name in rows:
        target_note = f" (target >= {target:g}x)" if name == "jnq" else ""
        print(f"  {title:42s} {n / t[name]:9.0f} q/s  ratio {t['bare'] / t[name]:5.2f}x"
              f"{target_note}  peak {peaks[name] / 1024:7.1f} KiB")
    print(f"  {'JNQ filter, first run (cold cache)':42s} {n / t['cold']:9.0f} q/s  "
          f"ratio {t['bare'] / t['cold']:5.2f}x")
    print(f"  JNQ ratio, median of the per-round ratios: {t['ratio_median']:.2f}x")


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
    parser.add_argument("--rounds", type=int, default=7,
                        help="interleaved timed rounds; the best time per row is kept")
    parser.add_argument("--mix-factor", type=int, default=4,
                        help="generated queries per shared question in the log mix")
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
    mix = log_mix(questions, keywords(tagger, questions), args.mix_factor)
    spaced = sum(1 for q in mix if has_space(normalize_ja(q)))
    print(f"Log mix: {len(mix)} queries: {len(questions)} shared questions "
          f"({len(questions) / len(mix):.0%}), {spaced} spaced ({spaced / len(mix):.0%}), "
          f"{len(mix) - len(questions) - spaced} keyword-style without spaces")
    checked = check_decisions(tagger, questions) + check_decisions(tagger, mix)
    print(f"Decisions identical to the reference: {checked} (query, option) pairs")
    print(f"Timing {pin_one_core()}")
    report("shared questions", questions, tagger, args.rounds, 0.8)
    report("log mix", mix, tagger, args.rounds, 2.0)
    print(f"Peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
          f"{proportional_memory()}")


def proportional_memory() -> str:
    """Current RSS and PSS (Linux): the analyzer's MeCab taggers map the same dictionary files,
    which RSS counts once per mapping and PSS once."""
    try:
        with open("/proc/self/smaps_rollup", encoding="ascii") as handle:
            sizes = {key: int(value.split()[0]) // 1024 for key, value in
                     (line.split(":", 1) for line in handle) if key in ("Rss", "Pss")}
    except OSError:
        return ""
    return f" (now: RSS {sizes['Rss']} MB, PSS {sizes['Pss']} MB)"


if __name__ == "__main__":
    main()
