import gzip
import io
import json
import tarfile

import pytest

from filters.nq.search_hits import SearchHit, top_wikipedia_hit, wikipedia_title
from transforms.clients.local_search import LocalSearch, best_snippet
from transforms.sources.search_corpus import (
    build_index,
    enterprise_records,
    page_record,
    visible_text,
)

PAGES = [
    ("https://en.wikipedia.org/wiki/Amazon_River", "Amazon River", "wikipedia", "101",
     "<html><head><title>Amazon River - Wikipedia</title></head><body><p>The Amazon river "
     "starts in the Andes and ends in the Atlantic Ocean.</p></body></html>"),
    ("https://www.rivers-example.com/amazon", "Amazon facts", "web", "",
     "<html><body><p>Where does the Amazon river start and end? Amazon river start, Amazon "
     "river end, Amazon river source.</p><script>var amazon=1;</script></body></html>"),
    ("https://en.wikipedia.org/wiki/Nile", "Nile", "wikipedia", "202",
     "<html><body><p>The Nile flows north into the Mediterranean Sea.</p></body></html>"),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    directory = tmp_path_factory.mktemp("index")
    count = build_index([page_record(*p) for p in PAGES], str(directory))
    assert count == 3
    return LocalSearch(str(directory))


def test_ranking_ties_and_zero_scores(index):
    hits = index.search("where does the amazon river start and end", k=5)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert hits[0].url == "https://www.rivers-example.com/amazon"
    assert "https://en.wikipedia.org/wiki/Nile" not in [h.url for h in hits]  # score 0
    chosen = top_wikipedia_hit(hits)
    assert chosen.url == "https://en.wikipedia.org/wiki/Amazon_River" and chosen.rank == 2
    assert index.search("zzzz qqqq") == [] and index.search("the of and") == []


def test_results_do_not_depend_on_input_order(tmp_path):
    build_index([page_record(*p) for p in reversed(PAGES)], str(tmp_path))
    again = LocalSearch(str(tmp_path))
    query = "amazon river atlantic"
    assert again.search(query) == LocalSearch(str(tmp_path)).search(query)


def test_page_store_and_script_text_not_indexed(index):
    page = index.page("Amazon_River")
    assert page.revision == 101 and "Andes" in page.html
    assert index.page("Amazon River") == page
    assert index.page("Missing") is None
    assert index.search("var amazon 1")[0].snippet.find("var") == -1


def test_visible_text_and_snippet():
    assert visible_text("<html><head><title>T</title><style>x{}</style></head>"
                        "<body><p>A <b>b</b></p><script>no</script></body></html>") == "T A b"
    text = " ".join(["filler"] * 50 + ["amazon", "river", "source"] + ["filler"] * 50)
    assert "amazon river source" in best_snippet(text, "amazon source", words=10)


def test_wikipedia_titles_and_top5_rule():
    assert wikipedia_title("https://en.wikipedia.org/wiki/The_Godfather") == "The_Godfather"
    assert wikipedia_title("https://en.m.wikipedia.org/wiki/The%20Godfather") == "The_Godfather"
    assert wikipedia_title("https://en.wikipedia.org/w/index.php?title=Nile&oldid=5") == "Nile"
    assert wikipedia_title("https://en.wikipedia.org/wiki/Talk:Nile") is None
    assert wikipedia_title("https://en.wikipedia.org/wiki/Main_Page") is None
    assert wikipedia_title("https://ja.wikipedia.org/wiki/東京タワー", "ja") == "東京タワー"
    assert wikipedia_title("https://fr.wikipedia.org/wiki/Nil") is None
    hits = [SearchHit(f"https://example.com/{i}", "", "", i) for i in range(1, 6)]
    hits.append(SearchHit("https://en.wikipedia.org/wiki/Nile", "Nile", "", 6))
    assert top_wikipedia_hit(hits) is None  # rank 6 is outside the top 5


def _dump(lines):
    payload = "".join(json.dumps(line) + "\n" for line in lines).encode() + b"{broken\n"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("enwiki_namespace_0_0.ndjson")
        info.size = len(payload)
        archive.addfile(info, io.BytesIO(payload))
    return buffer.getvalue()


def test_enterprise_dump_records():
    data = _dump([
        {"name": "Nile", "url": "https://en.wikipedia.org/wiki/Nile",
         "version": {"identifier": 77}, "namespace": {"identifier": 0},
         "article_body": {"html": "<html><body><p>River text</p></body></html>"}},
        {"name": "Talk:Nile", "namespace": {"identifier": 1},
         "article_body": {"html": "<p>talk</p>"}},
    ])
    records = list(enterprise_records(io.BytesIO(data)))
    assert [r["title"] for r in records if isinstance(r, dict)] == ["Nile"]
    assert records[0]["revision"] == 77 and records[0]["kind"] == "wikipedia"
    assert sum(isinstance(r, Exception) for r in records) == 1
    with pytest.raises((EOFError, tarfile.ReadError, OSError, gzip.BadGzipFile)):
        list(enterprise_records(io.BytesIO(data[: len(data) // 2])))


def test_streamed_build_spreads_docs_over_files_and_keeps_order(tmp_path):
    import pyarrow.parquet as pq

    records = sorted((page_record(*p) for p in PAGES), key=lambda r: r["url"])
    assert build_index(iter(records), str(tmp_path), ordered=True, batch_size=2,
                       rows_per_file=2) == 3
    files = sorted(p.name for p in (tmp_path / "docs").iterdir())
    assert files == ["docs-00000-of-00002.parquet", "docs-00001-of-00002.parquet"]
    rows = [r for f in files for r in pq.read_table(tmp_path / "docs" / f).to_pylist()]
    assert [r["doc_id"] for r in rows] == [0, 1, 2]
    assert [r["url"] for r in rows] == [r["url"] for r in records]
    unsorted = tmp_path / "unsorted"
    build_index(reversed(records), str(unsorted))
    assert LocalSearch(str(tmp_path)).search("amazon river") == LocalSearch(
        str(unsorted)).search("amazon river")


def test_an_index_without_a_page_store_is_refused_with_the_fix(tmp_path):
    import shutil

    from transforms.clients.local_search import IndexFormatError

    build_index([page_record(*p) for p in PAGES], str(tmp_path))
    shutil.rmtree(tmp_path / "pages")
    with pytest.raises(IndexFormatError, match="rebuild it with python -m pipelines"):
        LocalSearch(str(tmp_path))


def test_workers_share_one_index_and_the_fetcher_needs_no_bm25(tmp_path):
    import shutil

    from transforms.nq.backends import BackendOptions, LocalPageFetcher

    build_index([page_record(*p) for p in PAGES], str(tmp_path))
    options = BackendOptions(index_dir=str(tmp_path))
    first, second = options.make_search(), options.make_search()
    assert first.backend is second.backend  # one LocalSearch per process (Beam's Shared)
    first.close()
    assert second.search("nile mediterranean")[0].url == "https://en.wikipedia.org/wiki/Nile"
    shutil.rmtree(tmp_path / "bm25")
    page = LocalPageFetcher(str(tmp_path), "en").fetch("Nile")
    assert page.revision == 202 and "Mediterranean" in page.html


def _snippet_token_by_token(text: str, query: str, words: int = 30) -> str:
    """The snippet rule written plainly: a token is a hit when one of its words is a term."""
    import re

    word = re.compile(r"(?u)\b\w\w+\b")
    terms = {t.lower() for t in word.findall(query)}
    tokens = text.split()
    if len(tokens) <= words:
        return " ".join(tokens)
    hits = [1 if {t.lower() for t in word.findall(tok)} & terms else 0 for tok in tokens]
    sums = [sum(hits[s:s + words]) for s in range(len(tokens) - words + 1)]
    start = sums.index(max(sums))
    return " ".join(tokens[start:start + words])


def test_the_one_pass_snippet_equals_the_token_by_token_rule():
    import random
    from pathlib import Path

    from transforms.clients.local_search import _WORD

    corpus = Path(__file__).parents[3] / "pipelines" / "samples" / "nq" / "corpus"
    texts = [visible_text(p.read_text(encoding="utf-8")) for p in sorted(corpus.rglob("*.html"))]
    texts += ["İstanbul Üniversity the ΑΣ-x big  double space " * 10,
              "naïve café ΣΑΣ x " * 20, "a-b c_d e.f don't O'Neil 1996–97 " * 20]
    assert len(texts) > 40
    rng = random.Random(7)
    for text in texts:
        words = _WORD.findall(text) or ["x"]
        for _ in range(20):
            query = " ".join(rng.choice(words).upper() if rng.random() < 0.2
                             else rng.choice(words) for _ in range(rng.randint(1, 5)))
            assert best_snippet(text, query) == _snippet_token_by_token(text, query), query
