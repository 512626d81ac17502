"""The generic layout on the 16 news pages of ../shared/data/news (issue 37 §1), labelled in
``news_labels``: every "?" heading is labelled, the targets hold on the unseen publishers,
and one golden end-to-end build keeps exactly the real sub-headings (skipped without
../shared)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from filters.bbc.article import clean_text, load_html
from filters.nlquad.qa import is_interrogative
from pipelines.build_nlquad import run
from tests.conftest import TEST_RUNNER
from tests.realdata.news_labels import DEV, NEWS_LABELS, UNSEEN, normalized
from tests.realdata.news_measure import measure_pipeline

pytestmark = pytest.mark.realdata

REAL_PER_16 = 14  # at least 14 of every 16 real sub-headings found with their answer
PAGES_PER_BOILERPLATE = 8  # at most 1 boilerplate question per 8 pages


@pytest.fixture(scope="module")
def news(shared_data) -> Path:
    return shared_data / "news"


@pytest.fixture(scope="module")
def figures(news) -> dict[str, dict[str, int]]:
    return measure_pipeline(news)


def test_every_question_heading_of_every_page_is_labelled(news):
    assert sorted(p.name for p in news.glob("*.html")) == sorted(NEWS_LABELS)
    for page, label in NEWS_LABELS.items():
        doc = load_html((news / page).read_text(encoding="utf-8", errors="replace"))
        found = {normalized(clean_text("".join(h.itertext())))
                 for h in doc.iter("h1", "h2", "h3")}
        labelled = {normalized(q) for q in [*label.real, *label.boilerplate]}
        assert {q for q in found if is_interrogative(q)} <= labelled, page
        assert labelled <= {q for q in found if "?" in q}, page  # "Who dis? 🤔" too


@pytest.mark.parametrize("split", [UNSEEN, DEV])
def test_targets_hold(figures, split):
    values = figures[split]
    assert values["real_found"] * 16 >= REAL_PER_16 * values["real"], values
    assert values["boilerplate_pairs"] * PAGES_PER_BOILERPLATE <= values["pages"], values
    assert values["body"] == values["pages"], values


def test_golden_build_keeps_exactly_the_real_sub_headings(news, tmp_path):
    result = run(["--source", "html", "--input", str(news / "*.html"),
                  "--output", str(tmp_path), TEST_RUNNER])
    path = Path(result["path"])
    rows = [r for split in ("train", "dev", "test") for r in pq.read_table(path / split)
            .to_pylist()]
    kept = {(r["url"].split("/")[2], normalized(r["question"])) for r in rows}
    expected = {(url_host, normalized(q)) for page, label in NEWS_LABELS.items()
                for url_host in [_host(news / page)] for q in label.real}
    assert kept == expected
    for row in rows:
        label = NEWS_LABELS[next(p for p in NEWS_LABELS if _host(news / p) ==
                                 row["url"].split("/")[2])]
        assert normalized(row["answer_text"]).startswith(
            normalized(label.real[next(q for q in label.real
                                       if normalized(q) == normalized(row["question"]))]))
        assert row["layout_era"] == "generic" and row["date"]
    counts = result["stats"]["counts"]
    assert counts["pages"]["read"] == counts["pages"]["parsed_generic"] == len(NEWS_LABELS)


def _host(page: Path) -> str:
    from transforms.sources.page_files import page_url_in_head

    return page_url_in_head(page.read_bytes()[:65536]).split("/")[2]
