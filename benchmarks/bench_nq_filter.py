"""Quality and speed of the NQ question filter (length + NQ §3.1's heuristics 1-5 and our
rules 6-8). Not a test.

    python benchmarks/bench_nq_filter.py [--shared ../shared/data/queries] [--categories TSV]

Quality, on real query sets from ``../shared/data/queries``:

* recall on EfficientQA dev (1,800 real Google queries that passed NQ's own filter): the share
  accepted by length (8+ spaCy tokens) and the heuristics. Target >= 97.5%.
* "how to" acceptance: share of 8+-token queries starting with "how to" in MS MARCO and
  TREC MQ 2007 that are accepted (target <= 30%), and on our own 120 realistic "how to"
  queries (benchmarks/data/how_to_queries.txt; target <= 35%).
* for context: acceptance of all 8+-token queries of MQ 2007, MS MARCO and WebQuestions, and
  how often each heuristic fires.

Speed, on one core, all queries of those sets: the filter (``SelectQuestions``: cheap checks,
tokenizer length, tagging only the survivors, heuristics), stage 1 of the ``build_nq``
pipeline (``--stop-after questions``: read, aggregate, filter, release ``nq_questions``;
DirectRunner, in-process, same lexicon) and raw ``nlp.pipe`` over every query (the limit),
with ratios. Stage 2 (search, pages, candidates) is not the filter's work and is left out,
so the pipeline row compares the same work as the other two.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def load_sets(shared: Path) -> dict[str, list[str]]:
    def lines(name: str) -> list[str]:
        return (shared / name).read_text(encoding="utf-8").splitlines()

    return {
        "nq_open_dev": [json.loads(x)["question"] for x in lines(
            "en_nq_open_efficientqa_dev.jsonl") if x.strip()],
        "msmarco": [x.split("\t", 1)[1].strip() for x in lines(
            "en_msmarco_passage_dev_subset.tsv") if "\t" in x],
        "trec_mq2007": [x.split(":", 1)[1].strip() for x in lines(
            "en_trec_mq2007_topics_first5000.txt") if ":" in x],
        "webquestions": [json.loads(x)["question"] for x in lines(
            "en_webquestions_test.jsonl") if x.strip()],
        "own_how_to": (ROOT / "benchmarks" / "data" / "how_to_queries.txt").read_text(
            encoding="utf-8").splitlines(),
    }


def make_filter(categories: str):
    from pipelines.build_nq import read_categories
    from transforms.nq.questions import SelectQuestions

    select = SelectQuestions(read_categories(categories), min_category_count=2)
    select.setup()
    return select


def run_filter(select, queries: list[str], batch: int = 256) -> dict[str, dict]:
    """normalized query -> accepted row (heuristics), for every accepted query."""
    from filters.nq.queries import normalize_query

    accepted = {}
    rows = [{"question": normalize_query(q), "variants": [q], "events": 1,
             "users_in_window": 2, "distinct_users": 2, "tokens": 0, "heuristics": []}
            for q in queries]
    for start in range(0, len(rows), batch):
        for out in select.process([(row, None) for row in rows[start:start + batch]]):
            if isinstance(out, dict):
                accepted[out["question"]] = out
    return accepted


def populations(select, sets: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """The measured populations, normalized like the pipeline normalizes queries."""
    from filters.nq.queries import normalize_query

    tokenizer = select.model().tokenizer
    normalized = {name: [normalize_query(q) for q in queries] for name, queries in sets.items()}
    long = {name: [q for q in qs if len(tokenizer(q)) >= 8] for name, qs in normalized.items()}
    how_to = [q for name in ("msmarco", "trec_mq2007") for q in long[name]
              if q.startswith("how to ")]
    return [
        ("NQ-open dev recall, all 1,800 (target >= 97.5%)", normalized["nq_open_dev"]),
        ("'how to', MS MARCO + MQ 2007, 8+ tokens (target <= 30%)", how_to),
        ("'how to', our own 120, 8+ tokens (target <= 35%)", long["own_how_to"]),
        ("MQ 2007, 8+ tokens", long["trec_mq2007"]),
        ("MS MARCO, 8+ tokens", long["msmarco"]),
        ("WebQuestions, 8+ tokens", long["webquestions"]),
    ]


def _measure(select, name, population):
    accepted = run_filter(select, population)
    fired = Counter(h for row in accepted.values() for h in row["heuristics"])
    kept = sum(1 for q in population if q in accepted)
    return name, kept, len(population), fired


def speed_round(select, queries: list[str], categories: str) -> dict[str, float]:
    """Seconds of one pass of each: raw ``nlp.pipe``, the filter, the stage-1 pipeline."""
    nlp = select.model()
    started = time.perf_counter()
    for _ in nlp.pipe(queries, batch_size=256):
        pass
    raw = time.perf_counter() - started
    started = time.perf_counter()
    run_filter(select, queries)
    filtered = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log.jsonl"
        log.write_text("".join(json.dumps({"query": q, "count": 2, "users": 2}) + "\n"
                               for q in queries), encoding="utf-8")
        from pipelines.build_nq import run

        started = time.perf_counter()
        run(["--runner=DirectRunner", "--input", str(log), "--output", str(Path(tmp) / "out"),
             "--stop-after", "questions", "--categories", categories,
             "--min-category-count", "2", "--progress", "off"])
        pipeline = time.perf_counter() - started
    return {"raw": raw, "filter": filtered, "pipeline": pipeline}


def speed(select, queries: list[str], categories: str, rounds: int) -> dict[str, float]:
    """Median seconds of each over ``rounds`` interleaved rounds (a neighbour's load on a
    shared core hits all three alike), and the median per-round speed ratios to raw."""
    runs = [speed_round(select, queries, categories) for _ in range(rounds)]
    result = {name: statistics.median(r[name] for r in runs)
              for name in ("raw", "filter", "pipeline")}
    for name in ("filter", "pipeline"):
        result[f"{name}_ratio"] = statistics.median(r["raw"] / r[name] for r in runs)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared", default=str(ROOT.parent / "shared" / "data" / "queries"))
    parser.add_argument("--categories",
                        default=str(ROOT / "pipelines" / "samples" / "nq" / "categories.tsv"))
    parser.add_argument("--rounds", type=int, default=3,
                        help="interleaved speed rounds (medians are reported)")
    args = parser.parse_args()
    shared = Path(args.shared)
    if not shared.is_dir():
        sys.exit(f"real query sets not found at {shared} (they live in ../shared/data/queries)")
    sets = load_sets(shared)
    select = make_filter(args.categories)
    print("NQ filter quality (length >= 8 spaCy tokens + NQ heuristics 1-5, our rules 6-8)")
    print(f"  {'set':55s} {'accepted':>10s} {'share':>7s}  per heuristic")
    for label, population in populations(select, sets):
        _, kept, total, fired = _measure(select, label, population)
        per = " ".join(f"h{h}={fired[h]}" for h in sorted(fired))
        print(f"  {label:55s} {kept:>5d}/{total:<5d} {kept / max(total, 1):7.1%}  {per}")
    queries = [q for name, qs in sets.items() if name != "own_how_to" for q in qs]
    times = speed(select, queries, args.categories, args.rounds)
    n = len(queries)
    print(f"Speed on {n} queries, one core, median of {args.rounds} interleaved rounds:")
    print(f"  {'raw nlp.pipe (limit)':40s} {n / times['raw']:9.0f} queries/s")
    print(f"  {'filter (SelectQuestions)':40s} {n / times['filter']:9.0f} queries/s  "
          f"ratio {times['filter_ratio']:.2f}x of the tagger's speed")
    print(f"  {'build_nq --stop-after questions (Direct)':40s} "
          f"{n / times['pipeline']:9.0f} queries/s  "
          f"ratio {times['pipeline_ratio']:.2f}x (stage 1 only; includes start-up "
          "and writing)")
    print(f"  peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
