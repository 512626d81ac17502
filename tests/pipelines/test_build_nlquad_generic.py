"""``build_nlquad --layout``: a news site that is not the BBC, end to end, on hand-written
pages (``tests.filters.nlquad.news_fixtures``) next to a BBC sample page."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pyarrow.parquet as pq

from filters.nlquad.layout import LAYOUTS
from pipelines.build_nlquad import format_summary, main, run
from tests.conftest import TEST_RUNNER
from tests.filters.nlquad.news_fixtures import (
    ARTICLE,
    ARTICLE_URL,
    FURNITURE,
    NO_BODY,
    NO_BODY_URL,
    REAL_QUESTIONS,
)

BBC_PAGE = "eraB_2016_health-37123456.html"
BBC_URL = "http://www.bbc.co.uk/news/health-37123456"
MULTI = ["--runner=DirectRunner", "--direct_running_mode=multi_processing",
         "--direct_num_workers=2"]


def _pages(directory: Path, pages: dict[str, tuple[str, str | bytes]]) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    lines = ["file\turl\ttimestamp"]
    for name, (url, content) in pages.items():
        path = directory / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        lines.append(f"{name}\t{url}\t20210305120000")
    (directory / "index.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(directory / "*.html")


def _bbc_page() -> bytes:
    base = resources.files("pipelines").joinpath("samples", "nlquad", "pages")
    return base.joinpath(BBC_PAGE).read_bytes()


def _rows(path: Path) -> list[dict]:
    return [row for split in ("train", "dev", "test")
            for row in pq.read_table(path / split).to_pylist()]


def _build(tmp_path: Path, *extra: str) -> tuple[dict, Path]:
    pattern = _pages(tmp_path / "pages", {"flood.html": (ARTICLE_URL, ARTICLE),
                                          "bbc.html": (BBC_URL, _bbc_page())})
    result = run(["--source", "html", "--input", pattern, "--output", str(tmp_path / "out"),
                  *extra])
    return result, Path(result["path"])


def test_auto_layout_reads_bbc_and_other_sites_each_with_its_parser(tmp_path):
    result, path = _build(tmp_path, TEST_RUNNER)
    rows = _rows(path)
    generic = [r for r in rows if r["layout_era"] == "generic"]
    assert {r["question"] for r in generic} == set(REAL_QUESTIONS)
    assert {r["url"] for r in generic} == {ARTICLE_URL}
    assert all(r["published"] == "2021-03-04T08:15:00Z" for r in generic)
    assert {r["layout_era"] for r in rows} == {"generic", "B"}
    counts = result["stats"]["counts"]
    assert counts["pages"]["parsed_generic"] == 1 and counts["pages"]["parsed_era_B"] == 1
    for reason in set(FURNITURE.values()):
        assert counts["questions"][f"dropped.{reason}"] == list(FURNITURE.values()).count(
            reason)
    dropped = [json.loads(line) for f in (path / "rejected" / "dropped_questions").glob("*")
               for line in f.read_text().splitlines()]
    assert {d["question"]: d["reason"] for d in dropped} == FURNITURE
    card = (path / "README.md").read_text(encoding="utf-8")
    assert "Layout: 1 articles were read by the BBC parser (eras A-D) and 1 by the generic " \
           "main-content extractor" in card
    assert "Pages: saved HTML news pages \\(BBC News and other sites\\)." in card
    assert "  articles parsed, generic layout: 1" in format_summary(result)


def test_generic_layout_runs_on_the_multi_process_direct_runner(tmp_path):
    result, path = _build(tmp_path, *MULTI, "--layout", "generic")
    rows = _rows(path)
    assert {r["layout_era"] for r in rows} == {"generic"}
    assert set(REAL_QUESTIONS) <= {r["question"] for r in rows}
    assert result["stats"]["counts"]["pages"]["parsed_generic"] == 2


def test_bbc_layout_skips_other_sites_and_says_why_on_the_console(tmp_path, capsys):
    pattern = _pages(tmp_path / "pages", {"flood.html": (ARTICLE_URL, ARTICLE)})
    code = main(["--source", "html", "--input", pattern, "--output", str(tmp_path / "out"),
                 "--layout", "bbc", TEST_RUNNER])
    err = capsys.readouterr().err
    assert code == 4
    assert "first of skipped_pages: not_article_url: not a BBC page: --layout bbc reads only " \
           f"BBC News articles; --layout auto or generic reads other sites ({ARTICLE_URL})" in err


def test_a_page_that_gives_nothing_prints_why(tmp_path, capsys):
    pattern = _pages(tmp_path / "pages", {"weather.html": (NO_BODY_URL, NO_BODY)})
    code = main(["--source", "html", "--input", pattern, "--output", str(tmp_path / "out"),
                 TEST_RUNNER])
    err = capsys.readouterr().err
    assert code == 4
    line = next(x for x in err.splitlines() if "first of skipped_pages:" in x)
    assert "trafilatura" in line and NO_BODY_URL in line


def test_layout_option_choices_and_default(capsys):
    from transforms.nlquad.spec import NlquadOptions

    assert NlquadOptions().layout == "auto" and LAYOUTS == ("auto", "bbc", "generic")
    assert main(["--layout", "guess"]) == 2
    assert "invalid choice: 'guess'" in capsys.readouterr().err
