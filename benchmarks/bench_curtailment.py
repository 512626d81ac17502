"""Measure exact curtailment on simulated JNQ / JBoolQ campaigns. Not a test.

    python benchmarks/bench_curtailment.py                  # 2,000 JNQ questions
    python benchmarks/bench_curtailment.py --questions 500 --order jboolq --spammers 0.2

Synthesizes ``--questions`` rows of five candidate paragraphs, simulates the full overlap
(``annotate simulate``'s workers, 10 per stage) and the adaptive rounds ``annotate next`` asks
(``transforms.annotation.simulate_rounds.jnq_campaign``), and prints the judgments the rounds
used as a share of the full overlap's, the share of questions whose decisions are identical
(must be 100%) and the most rounds a question took.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from transforms.annotation.simulate import WorkerPool  # noqa: E402
from transforms.annotation.simulate_rounds import jnq_campaign  # noqa: E402

TEXT = "日本の首都は東京であり、人口は約千四百万人である。江戸時代には江戸と呼ばれていた。"


def rows(questions: int) -> list[dict]:
    """Synthetic JNQ rows: five candidates each, ranked in order."""
    return [{"id": f"q{number:06d}", "question": f"question {number}",
             "candidate_paragraph_ids": [1, 2, 3, 4, 5], "candidate_ranks": [0, 1, 2, 3, 4],
             "paragraphs": [{"id": p, "text": f"{p}: {TEXT}"} for p in range(1, 6)]}
            for number in range(questions)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--order", choices=("jnq", "jboolq"), default="jnq")
    parser.add_argument("--spammers", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    pool = WorkerPool(size=50, spammer_share=args.spammers, seed=args.seed)
    started = time.perf_counter()
    found = jnq_campaign(rows(args.questions), pool, args.order)
    print(f"{args.order}: {found['questions']} questions, {args.spammers:.0%} spammers")
    print(f"  judgments: {found['judgments']} of the full overlap's {found['full_overlap']} "
          f"({100 * found['share']:.1f}%)")
    print(f"  identical decisions: {found['identical']} of {found['questions']} "
          f"({100 * found['identical'] / max(found['questions'], 1):.1f}%)")
    print(f"  most rounds for a question: {found['most_rounds']}; "
          f"{time.perf_counter() - started:.1f} s")
    return 0 if found["identical"] == found["questions"] else 1


if __name__ == "__main__":
    sys.exit(main())
