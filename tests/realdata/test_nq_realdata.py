"""The NQ filter on real queries (../shared/data/queries; skipped when absent)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def select():
    from pipelines.build_nq import read_categories
    from transforms.nq.questions import SelectQuestions

    fn = SelectQuestions(read_categories(str(PROJECT_ROOT / "pipelines" / "samples" / "nq" /
                                             "categories.tsv")), min_category_count=2)
    fn.setup()
    return fn


def _accepted(select, queries):
    from filters.nq.queries import normalize_query

    rows = [{"question": normalize_query(q), "variants": [q], "events": 1,
             "users_in_window": 2, "distinct_users": 2, "tokens": 0, "heuristics": []}
            for q in queries]
    return [out for out in select.process([(row, None) for row in rows])
            if isinstance(out, dict)]


def test_real_nq_questions_are_accepted(shared_data, select):
    lines = (shared_data / "queries" / "en_nq_open_efficientqa_dev.jsonl").read_text()
    questions = [json.loads(line)["question"] for line in lines.splitlines() if line.strip()]
    recall = len(_accepted(select, questions)) / len(questions)
    assert recall >= 0.95, f"recall {recall:.3f} on real NQ questions"


def test_real_how_to_queries_are_mostly_rejected(shared_data, select):
    queries = [line.split("\t", 1)[1].strip() for line in (
        shared_data / "queries" / "en_msmarco_passage_dev_subset.tsv").read_text().splitlines()
        if "\t" in line]
    queries += [line.split(":", 1)[1].strip() for line in (
        shared_data / "queries" / "en_trec_mq2007_topics_first5000.txt").read_text().splitlines()
        if ":" in line]
    how_to = [q for q in queries if q.lower().startswith("how to ")
              and len(select.model().tokenizer(q.lower())) >= 8]
    assert len(how_to) >= 20
    share = len(_accepted(select, how_to)) / len(how_to)
    assert share <= 0.40, f"'how to' acceptance {share:.3f}"
