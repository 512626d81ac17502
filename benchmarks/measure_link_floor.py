"""Precision and recall of NQ linking's relevance floor (``--min-score``, ``--min-margin``)
on NQ-open questions against the bundled sample index. Not a test.

    python benchmarks/measure_link_floor.py [--nq-open PATH]   # NQ-open (EfficientQA dev)

``--nq-open`` defaults to ../shared/data/queries/en_nq_open_efficientqa_dev.jsonl.

Each question's top Wikipedia page among the top 5 hits (the page NQ linking chooses) is
labelled relevant or not:

* relevant: the 32 bundled sample questions the golden linking links
  (``tests/golden/nq_search_expected.json``: written for those pages) and the NQ-open
  questions in ``RELEVANT`` below, labelled by hand: the page is the Wikipedia article of the
  question's subject, or its series' article (a Harry Potter film question on *Harry
  Potter*). Candidates were the NQ-open questions naming a topic of the index's 31 articles
  and those whose top page's title shares a word with them; a page of another edition or
  film (2018 World Cup on *2014 FIFA World Cup*) is not relevant;
* not relevant: every other NQ-open question (their articles are not in the index).

The floor keeps a question when its page scores at least ``min_score`` (the share of the
question's BM25 weight the page matches, ``LocalSearch``'s ``score``) and leads the next hit by
at least ``min_margin`` of its score. Printed: kept, precision, recall and the share of
wrong links dropped per setting, and the same for the raw score per query term (the
alternative we did not choose: its scale moves with the index's size). See
docs/design/decisions.md, "A relevance floor for NQ linking".
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from filters.nq.relevance_floor import margin_over_next
from filters.nq.search_hits import top_wikipedia_hit
from transforms.clients.local_search import LocalSearch
from transforms.sources.search_corpus import ensure_sample_index

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "nq_search_expected.json"
RELEVANT = frozenset({
    "when was harry potter and the deathly hallows part 2 movie released",
    "who created the chamber of secrets in harry potter",
    "who dies in harry potter and the order of phoenix",
    "who played albus dumbledore in harry potter 6",
    "when did the harry potter movie come out",
    "when did all the harry potter movies come out",
    "how old was harry in prisoner of azkaban",
    "when was the statue of liberty made in france",
    "which country has gifted statue of liberty to america",
    "when did the construction of the statue of liberty start",
    "what is lady liberty holding in her hand",
    "how much has the wizard of oz made to date",
    "what is the first language in new zealand",
    "who wrote their name big on the declaration of independence",
    "who took the declaration of independence to england",
    "when did the colonies declare independence from britain",
    "who discovered the true source of the nile",
    "the earliest civilizations in egypt were centered on this river",
    "who did the united states fight for independence",
    "when did season 1 of the office start",
    "who replaced michael as the manager of the scranton branch",
    "where do we see rings in the solar system",
    "when is game of thones season 8 coming out",
    "when does season 8 of game of theones start",
})
SCORES = (0.1, 0.15, 0.2, 0.22, 0.25, 0.3, 0.4)
MARGINS = (0.0, 0.1, 0.2)


def linked(search: LocalSearch, question: str) -> tuple[float, float, float] | None:
    """(share of the query weight, raw BM25 per query term, margin) of the chosen page."""
    hits = search.search(question, 5)
    hit = top_wikipedia_hit(hits)
    if hit is None:
        return None
    terms = len(search._tokenize([question])[0])  # noqa: SLF001 - the query's terms
    weight = search._index.query_weight(search._tokenize([question])[0])  # noqa: SLF001
    return hit.score, hit.score * weight / terms, margin_over_next(hit, hits)


def table(rows: list[tuple[float, float, bool]], floors: tuple[float, ...], name: str,
          margins: tuple[float, ...] = MARGINS) -> None:
    relevant = sum(r[2] for r in rows)
    wrong = len(rows) - relevant
    print(f"\n{name}: {len(rows)} linked questions, {relevant} relevant, {wrong} not")
    print("| min score | min margin | kept | precision | recall | wrong links dropped |")
    print("|---|---|---|---|---|---|")
    for margin in margins:
        for floor in floors:
            kept = [r for r in rows if r[0] >= floor and r[1] >= margin]
            hits = sum(r[2] for r in kept)
            print(f"| {floor} | {margin} | {len(kept)} | {hits / max(1, len(kept)):.3f} | "
                  f"{hits / relevant:.3f} | {(wrong - (len(kept) - hits)) / wrong:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nq-open", default=str(
        ROOT.parent / "shared" / "data" / "queries" / "en_nq_open_efficientqa_dev.jsonl"))
    args = parser.parse_args()
    golden = json.loads(GOLDEN.read_text())["expected_top_wikipedia"]
    questions = [(q, True) for q, page in sorted(golden.items()) if page is not None]
    with open(args.nq_open, encoding="utf-8") as handle:
        questions += [(q, q in RELEVANT) for q in (json.loads(line)["question"]
                                                   for line in handle)]
    search = LocalSearch(ensure_sample_index())
    share, raw = [], []
    for question, relevant in questions:
        found = linked(search, question)
        if found is not None:
            share.append((found[0], found[2], relevant))
            raw.append((found[1], found[2], relevant))
    table(share, SCORES, "share of the question's BM25 weight (--min-score)")
    table(raw, (0.5, 0.6, 0.7, 0.8), "raw BM25 per query term (not chosen)", (0.0,))


if __name__ == "__main__":
    main()
