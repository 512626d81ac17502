"""write_rejected: every rejected kind streamed, counted by reason, examples paginated and
escaped, memory bounded to the first records of each reason."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from transforms.browse import rejected
from transforms.browse.base import ReleaseView
from transforms.browse.rejected import reason_of, slug, tally, write_rejected
from transforms.release import ReleaseTarget, parquet_bytes, publish
from transforms.release.staging import claim_staging

HOSTILE = '<script>alert("x")</script>'


def publish_release(root: Path, rejected_files: dict[str, bytes],
                    dataset: str = "toy") -> ReleaseView:
    """A published release with one train row and ``rejected_files`` (relative path ->
    bytes) staged as the pipelines stage them."""
    target = ReleaseTarget.create(str(root), dataset, "1.0.0")
    claim_staging(target)
    schema = pa.schema([("id", pa.string())])
    files = {"train/train-00000-of-00001.parquet": parquet_bytes([{"id": "a"}], schema),
             **rejected_files}
    for name, content in files.items():
        path = Path(target.staging_dir, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    publish(target, overwrite=False, splits=["train"], schema=schema, field_docs={},
            options={}, source={}, make_stats=lambda *_: {}, make_card=lambda *_: "toy\n")
    return ReleaseView.open(target.final_dir)


def jsonl(records: list[Any]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def _file(kind: str, ext: str = "jsonl") -> str:
    return f"rejected/{kind}/{kind}-00000-of-00001.{ext}"


SKIPPED = [{"reason": "live_page", "url": "https://www.bbc.co.uk/news/live/1", "detail": ""},
           {"reason": "index_page", "url": "https://www.bbc.co.uk/news/world", "detail": ""},
           {"reason": "live_page", "url": "https://www.bbc.co.uk/news/live/2", "detail": ""}]
DEAD = [{"stage": "log", "error_type": "ValueError", "error": "Invalid isoformat string",
         "row": "{'query': 'x'}", "traceback": "Traceback (most recent call last):\n  boom\n"}]
QUERIES = [{"question": "amazon", "variants": ["amazon", "Amazon"], "events": 9,
            "reason": "too_few_words"},
           {"question": "bbc news", "variants": ["bbc news"], "events": 8,
            "reason": "too_few_words"},
           {"question": "amazon.co.uk", "variants": [], "events": 4, "reason": "url_query"}]


@pytest.fixture
def release(tmp_path) -> ReleaseView:
    schema = pa.schema([("question", pa.string()), ("variants", pa.list_(pa.string())),
                        ("events", pa.int64()), ("reason", pa.string())])
    return publish_release(tmp_path / "releases", {
        _file("skipped_pages"): jsonl(SKIPPED),
        _file("dead_letter"): jsonl(DEAD),
        _file("queries", "parquet"): parquet_bytes(QUERIES, schema),
        _file("duplicates"): jsonl([{"document_id": "bbc-1", "kept_url": "https://a.example"}]),
    })


def test_every_kind_counted_by_reason(tmp_path, release):
    summary = write_rejected(str(tmp_path / "site"), release, page_size=2)
    assert summary["records"] == 8
    kinds = summary["kinds"]
    assert list(kinds) == ["dead_letter", "duplicates", "queries", "skipped_pages"]
    assert {k: {r: v["records"] for r, v in kind["reasons"].items()}
            for k, kind in kinds.items()} == {
        "dead_letter": {"log: ValueError": 1}, "duplicates": {"duplicates": 1},
        "queries": {"too_few_words": 2, "url_query": 1},
        "skipped_pages": {"live_page": 2, "index_page": 1}}
    assert kinds["queries"]["files"] == [_file("queries", "parquet")]
    index = (tmp_path / "site" / "rejected" / "index.html").read_text("utf-8")
    assert "8 records of 4 kinds." in index
    skipped = index[index.index('id="kind-skipped_pages"'):]
    assert skipped.index("live_page") < skipped.index("index_page")
    assert ('<a href="queries-too_few_words-00001.html">too_few_words</a></th>'
            '<td class="num">2</td>') in index
    assert 'href="../index.html">Overview</a>' in index
    for page in summary["pages"]:
        assert (tmp_path / "site" / page).is_file()
    assert sorted(p.name for p in (tmp_path / "site" / "rejected").iterdir()) == sorted(
        page.removeprefix("rejected/") for page in summary["pages"])


def test_example_pages_show_every_field(tmp_path, release):
    summary = write_rejected(str(tmp_path / "site"), release, page_size=10)
    page = summary["kinds"]["dead_letter"]["reasons"]["log: ValueError"]["pages"][0]
    assert re.fullmatch(r"rejected/dead_letter-log-valueerror-[0-9a-f]{8}-00001\.html", page)
    html = (tmp_path / "site" / page).read_text("utf-8")
    assert '<strong class="reason">log: ValueError</strong>' in html
    assert "<dt>error</dt><dd>Invalid isoformat string</dd>" in html
    assert ("<dt>traceback</dt><dd><details><summary>Traceback (most recent call last): "
            '<span class="muted">(2 lines, 42 characters)</span></summary>') in html
    queries = (tmp_path / "site" / "rejected" / "queries-too_few_words-00001.html").read_text()
    assert "<dt>variants</dt><dd><ol><li>amazon</li><li>Amazon</li></ol></dd>" in queries
    assert "<dt>events</dt><dd>9</dd>" in queries
    pages = (tmp_path / "site" / "rejected" / "skipped_pages-live_page-00001.html").read_text()
    assert ('<dd><a href="https://www.bbc.co.uk/news/live/2" rel="noopener noreferrer '
            'nofollow">https://www.bbc.co.uk/news/live/2</a></dd>') in pages


def test_pages_of_page_size_up_to_max_pages(tmp_path):
    records = [{"reason": "too_short", "question": f"q{i}"} for i in range(7)]
    view = publish_release(tmp_path / "releases", {_file("dropped_questions"): jsonl(records)})
    summary = write_rejected(str(tmp_path / "site"), view, page_size=3, max_pages=2)
    reason = summary["kinds"]["dropped_questions"]["reasons"]["too_short"]
    assert reason == {"records": 7, "shown": 6, "pages": [
        "rejected/dropped_questions-too_short-00001.html",
        "rejected/dropped_questions-too_short-00002.html"]}
    first, second = ((tmp_path / "site" / p).read_text("utf-8") for p in reason["pages"])
    assert "7 dropped_questions records were rejected for" in first
    assert "the first 6 are shown." in first
    assert re.findall(r'id="r-(\d+)"', first) == ["1", "2", "3"]
    assert re.findall(r'id="r-(\d+)"', second) == ["4", "5", "6"]
    assert "q5" in second and "q6" not in second
    assert '<a href="dropped_questions-too_short-00002.html">next →</a>' in first
    assert '<span class="disabled">← previous</span>' in first
    assert '<a href="dropped_questions-too_short-00001.html">← previous</a>' in second
    assert "page 2 of 2" in second


def test_everything_escaped_and_file_names_safe(tmp_path):
    records = [{"reason": HOSTILE, HOSTILE: HOSTILE, "url": "javascript:alert(1)",
                "nested": {"k": HOSTILE, "list": [HOSTILE]}},
               {"reason": "../../etc/passwd", "detail": HOSTILE * 20}]
    view = publish_release(tmp_path / "releases", {_file("weird"): jsonl(records)})
    summary = write_rejected(str(tmp_path / "site"), view, page_size=5)
    names = [p for p in summary["pages"]]
    assert all(re.fullmatch(r"rejected/[a-z0-9_-]+\.html", p) for p in names)
    for path in (tmp_path / "site" / "rejected").iterdir():
        html = path.read_text("utf-8")
        assert "<script" not in html
        assert 'href="javascript' not in html
    assert summary["kinds"]["weird"]["reasons"][HOSTILE]["records"] == 1
    index = (tmp_path / "site" / "rejected" / "index.html").read_text("utf-8")
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in index


def test_long_values_cut_and_folded(tmp_path):
    long_text = "word " * 2000
    view = publish_release(tmp_path / "releases", {_file("dead_letter"): jsonl(
        [{"stage": "parse", "error_type": "KeyError", "row": long_text,
          "hits": [f"https://e.example/{i}" for i in range(30)]}])})
    summary = write_rejected(str(tmp_path / "site"), view, page_size=5)
    html = (tmp_path / "site" / summary["pages"][1]).read_text("utf-8")
    assert "10,000 characters in all" in html
    assert html.count("word ") < 4100
    assert "<details><summary>word word" in html
    assert "https://e.example/19</a>" in html and "https://e.example/20" not in html
    assert "30 items in all" in html


def test_memory_bounded_to_first_records(tmp_path, monkeypatch):
    records = [{"reason": f"r{i % 3}", "n": i} for i in range(3000)]
    view = publish_release(tmp_path / "releases", {_file("dropped"): jsonl(records)})
    monkeypatch.setattr(rejected, "MAX_REASONS_SHOWN", 2)
    reasons = tally(view, [_file("dropped")], "dropped", keep=4)
    assert {r: t.count for r, t in reasons.items()} == {"r0": 1000, "r1": 1000, "r2": 1000}
    assert [e["n"] for e in reasons["r0"].examples] == [0, 3, 6, 9]
    assert reasons["r2"].examples == [] and not reasons["r2"].keeps
    summary = write_rejected(str(tmp_path / "site"), view, page_size=2, max_pages=1)
    assert summary["kinds"]["dropped"]["reasons"]["r2"] == {"records": 1000, "shown": 0,
                                                            "pages": []}
    index = (tmp_path / "site" / "rejected" / "index.html").read_text("utf-8")
    assert 'r2 <span class="muted">(no examples kept)</span>' in index


def test_release_without_rejected_records(tmp_path):
    view = publish_release(tmp_path / "releases", {})
    summary = write_rejected(str(tmp_path / "site"), view, page_size=10)
    assert summary == {"records": 0, "kinds": {}, "pages": ["rejected/index.html"]}
    index = (tmp_path / "site" / "rejected" / "index.html").read_text("utf-8")
    assert "This release keeps no rejected records." in index


def test_unreadable_lines_and_reasons(tmp_path):
    content = b'{"reason": "ok"}\nnot json\n\n[1, 2]\n'
    view = publish_release(tmp_path / "releases", {_file("odd"): content})
    reasons = tally(view, [_file("odd")], "odd", keep=5)
    assert {r: t.count for r, t in reasons.items()} == {"ok": 1, "unreadable line": 2}
    assert reasons["unreadable line"].examples[0] == {"reason": "unreadable line",
                                                      "line": "not json"}
    assert reason_of("dead_letter", {"stage": "fetch"}) == "fetch"
    assert reason_of("dead_letter", {"error_type": "OSError", "stage": "fetch"}) == \
        "fetch: OSError"
    assert reason_of("duplicates", {"reason": "  "}) == "duplicates"
    assert slug("too_few_words") == "too_few_words"
    assert slug("A b") != slug("a-b") and slug("A b").startswith("a-b-")


def test_same_release_same_bytes(tmp_path, release):
    write_rejected(str(tmp_path / "a"), release, page_size=2)
    write_rejected(str(tmp_path / "b"), release, page_size=2)
    for path in sorted((tmp_path / "a" / "rejected").iterdir()):
        assert path.read_bytes() == (tmp_path / "b" / "rejected" / path.name).read_bytes()


def test_page_size_must_be_positive(tmp_path, release):
    with pytest.raises(ValueError):
        write_rejected(str(tmp_path), release, page_size=0)


def test_class_labels_of_rejected_parquet_records_read_as_names(tmp_path):
    """Rejected JNQ queries store ``variant`` as a class-label index; the pages show its name."""
    from transforms.jnq.schema import REJECTED_QUERY_SCHEMA

    row = {"question": "q", "variant": "jboolq", "variants": ["q"], "events": 3,
           "users_in_window": 1, "distinct_users": 1, "words": 1, "patterns": [],
           "reason": "too_few_words"}
    view = publish_release(tmp_path / "releases", {
        _file("queries", "parquet"): parquet_bytes([row], REJECTED_QUERY_SCHEMA)})
    [record] = rejected.read_records(view.path, _file("queries", "parquet"))
    assert record == row
