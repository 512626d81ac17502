"""write_site on tiny real releases: every page written, escaped, deterministic, atomic; the
refusals before any work; the renderer registry."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pyarrow as pa
import pytest

from transforms.browse.base import ReleaseView
from transforms.browse.renderers import for_release, module_name
from transforms.browse.renderers.generic import GenericRenderer
from transforms.browse.site import (
    InvalidSiteDir,
    SiteExistsError,
    check_out_dir,
    is_our_site,
    write_site,
)
from transforms.release import DamagedReleaseError, ReleaseTarget, jsonl_bytes, parquet_bytes
from transforms.release import publish as publish_release
from transforms.release.staging import claim_staging

HOSTILE = '<script>alert("pwned")</script>'
SCHEMA = pa.schema([("id", pa.string()), ("question", pa.string()), ("context", pa.string()),
                    ("url", pa.string()), ("answers", pa.list_(pa.string())),
                    ("score", pa.int64())])


def toy_rows(split: str, n: int) -> list[dict[str, Any]]:
    return [{"id": f"{split}-{i}", "question": f"question {i} of {split} {HOSTILE}",
             "context": f"some context words {i}\n\nsecond paragraph",
             "url": "javascript:alert(1)" if i % 2 else f"https://example.org/{split}?i={i}&x=1",
             "answers": [f"answer {i}", HOSTILE], "score": i} for i in range(n)]


def toy_release(root: Path, *, dataset: str = "toy", version: str = "1.0.0",
                sizes: dict[str, int] | None = None,
                rejected: dict[str, list[dict[str, Any]]] | None = None) -> Path:
    """Publish a small release of ``dataset`` (train/dev/test with ``sizes`` rows, rejected
    records per kind) under ``root`` without Beam; its version directory."""
    sizes = sizes or {"train": 5, "dev": 2, "test": 2}
    rejected = {"dropped_questions": [{"id": "x1", "reason": "too_short", "question": HOSTILE},
                                      {"id": "x2", "reason": "too_short", "question": "q"},
                                      {"id": "x3", "reason": "no_answer", "question": "q"}]} \
        if rejected is None else rejected
    target = ReleaseTarget.create(str(root), dataset, version)
    claim_staging(target)
    for split, n in sizes.items():
        path = Path(target.staging_dir, split, f"{split}-00000-of-00001.parquet")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(parquet_bytes(toy_rows(split, n), SCHEMA))
    for kind, records in rejected.items():
        path = Path(target.staging_dir, "rejected", kind, f"{kind}-00000-of-00001.jsonl")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(jsonl_bytes(records))
    stats = {"counts": {"questions": {"input": 12, "kept": sum(sizes.values()),
                                      "dropped.too_short": 2, "dropped.no_answer": 1}}}
    publish_release(target, overwrite=False, splits=list(sizes), schema=SCHEMA, field_docs={},
                    options={"command": "python -m toy", "seed": 1}, source={},
                    make_stats=lambda *_: stats, make_card=lambda *_: "toy\n",
                    allow_empty=True)
    return Path(target.final_dir)


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return toy_release(tmp_path_factory.mktemp("releases"))


@pytest.fixture(scope="module")
def site(release, tmp_path_factory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("sites") / "toy"
    return out, write_site(str(release), str(out), page_size=4)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_every_page_is_written(site):
    out, summary = site
    files = _files(out)
    for name in ("index.html", "site.json", "assets/site.css", "assets/site.js",
                 "rejected/index.html", "examples/index-00001.html", "examples/index-00003.html",
                 "examples/page-00001.html", "examples/data-00003.js", "examples/pages.js"):
        assert name in files, name
    assert "examples/index-00004.html" not in files
    assert summary["renderer"] == "generic" and is_our_site(str(out))
    examples = summary["examples"]
    assert examples["entries"] == 9 and examples["index_pages"] == 3
    assert examples["splits"] == {"train": 5, "dev": 2, "test": 2}
    assert examples["rows_read"] == {"train": 5, "dev": 2, "test": 2}
    assert summary["rejected"]["records"] == 3
    assert json.loads(files["site.json"]) == summary
    assert summary["release"]["dataset"] == "toy" and summary["release"]["version"] == "1.0.0"
    assert not list(out.parent.glob("toy.tmp-*"))


def test_detail_sections_are_numbered_across_splits(site):
    out, _ = site
    detail = (out / "examples" / "page-00001.html").read_text(encoding="utf-8")
    assert '<section id="e-1" class="example" data-split="train" data-key="train-0">' in detail
    index = (out / "examples" / "index-00002.html").read_text(encoding="utf-8")
    assert 'href="page-00001.html#e-6"' in index and ">dev<" in index


def test_dataset_text_is_escaped_everywhere(site):
    out, _ = site
    for name, content in _files(out).items():
        text = content.decode("utf-8")
        assert HOSTILE not in text, name
        assert 'href="javascript:' not in text, name
        if name.endswith(".html"):
            assert "<script>" not in text, name
    index = (out / "examples" / "index-00001.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;" in index
    assert '<a href="https://example.org/train?i=0&amp;x=1"' in index


def test_the_overview_gets_the_histograms_of_every_row(site):
    out, summary = site
    assert summary["histograms"] == {"context words": 9, "question words": 9}
    overview = (out / "index.html").read_text(encoding="utf-8")
    assert "<svg" in overview and "toy 1.0.0" in overview


def test_the_same_release_gives_the_same_bytes(release, site, tmp_path):
    out, _ = site
    again = tmp_path / "again"
    write_site(str(release), str(again), page_size=4)
    assert _files(again) == _files(out)


def test_limit_is_per_split(release, tmp_path):
    summary = write_site(str(release), str(tmp_path / "s"), limit=1)
    assert summary["examples"]["splits"] == {"train": 1, "dev": 1, "test": 1}
    assert summary["limit"] == 1 and summary["examples"]["rows_read"]["train"] <= 2
    index = (tmp_path / "s" / "examples" / "index-00001.html").read_text(encoding="utf-8")
    assert "Examples 1–3 (at most 1 per split: --limit 1)" in index


def test_an_existing_out_is_refused_unless_overwrite_of_our_site(release, site, tmp_path):
    out, _ = site
    with pytest.raises(SiteExistsError, match="--overwrite"):
        write_site(str(release), str(out))
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(SiteExistsError, match="no site"):
        write_site(str(release), str(other), overwrite=True)
    assert [p.name for p in other.iterdir()] == ["keep.txt"]
    copy = tmp_path / "copy"
    write_site(str(release), str(copy), page_size=4)
    (copy / "stale.html").write_text("old")
    write_site(str(release), str(copy), page_size=4, overwrite=True)
    assert not (copy / "stale.html").exists() and _files(copy) == _files(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy", "other"]


def test_an_out_inside_the_release_or_holding_it_is_refused(release, tmp_path):
    with pytest.raises(InvalidSiteDir, match="inside the release"):
        write_site(str(release), str(release / "site"))
    with pytest.raises(InvalidSiteDir, match="holds the release"):
        check_out_dir(str(release), str(release.parent), overwrite=True)
    assert not (release / "site").exists()
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(InvalidSiteDir, match="not a directory"):
        write_site(str(release), str(afile), overwrite=True)


def test_a_damaged_release_is_refused_before_any_page(tmp_path):
    release = toy_release(tmp_path / "releases")
    shard = release / "train" / "train-00000-of-00001.parquet"
    shard.write_bytes(shard.read_bytes()[:-10])
    with pytest.raises(DamagedReleaseError):
        write_site(str(release), str(tmp_path / "site"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["releases"]


def test_bad_sizes_are_refused(release, tmp_path):
    with pytest.raises(ValueError):
        write_site(str(release), str(tmp_path / "s"), page_size=0)
    with pytest.raises(ValueError):
        write_site(str(release), str(tmp_path / "s"), limit=-1)
    assert not list(tmp_path.iterdir())


def test_a_failure_leaves_no_site_and_no_staging(release, tmp_path, monkeypatch):
    def broken(*_args, **_kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("transforms.browse.site.write_overview", broken)
    with pytest.raises(RuntimeError):
        write_site(str(release), str(tmp_path / "s"))
    assert not list(tmp_path.iterdir())


def test_a_release_without_rows_or_rejected_records(tmp_path):
    release = toy_release(tmp_path / "releases", dataset="empty",
                          sizes={"train": 0, "dev": 0, "test": 0}, rejected={})
    summary = write_site(str(release), str(tmp_path / "site"))
    assert summary["examples"]["entries"] == 0 and summary["rejected"]["records"] == 0
    assert "no examples" in (tmp_path / "site" / "examples" / "index-00001.html").read_text()


@pytest.mark.parametrize(("dataset", "module"), [
    ("nq", "nq"), ("nq_annotated", "nq"), ("nlquad", "nlquad"), ("jnq", "jnq"),
    ("jboolq", "jnq"), ("jnq_annotated", "jnq"), ("jboolq_annotated", "jnq"),
    ("reqa_squad", "reqa"), ("reqa_nq", "reqa"), ("nq_questions", "generic"),
    ("search_en", "generic"), ("categories", "generic"), ("toy", "generic")])
def test_each_dataset_has_its_renderer(dataset, module):
    assert module_name(dataset) == module


def test_the_generic_renderer_shows_any_row(release):
    view = ReleaseView.open(str(release))
    renderer = for_release(view)
    assert isinstance(renderer, GenericRenderer)
    assert renderer.columns == ("id", "question", "context", "url")
    assert renderer.measured == ("question", "context")
    table = view.main_tables()[0]
    entry = next(iter(renderer.entries(view, table, view.rows(table))))
    assert entry.key == "train-0" and entry.split == "train" and HOSTILE in entry.text
    assert ('<dt>answers</dt><dd><pre>[\n &quot;answer 0&quot;,\n &quot;&lt;script&gt;'
            in entry.detail)
    assert renderer.measures({"question": "a b c", "context": None}) == {"question words": 3}
    long = renderer.entry({"id": "x", "question": "word " * 100}, "dev", 1)
    assert long.cells[1].endswith("…") and len(long.cells[1]) <= 160
    assert ("word " * 100).strip() in long.detail
    assert renderer.entry({"question": "q"}, "dev", 7).key == "dev-7"


class _Tags(HTMLParser):
    """The start tags of a page with their attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _check_page(site: Path, page: Path) -> None:
    parser = _Tags()
    parser.feed(page.read_text(encoding="utf-8"))
    for tag, attrs in parser.tags:
        external = ("http:", "https:", "//")
        if tag == "script":
            assert attrs.get("src") and "://" not in attrs["src"], (page, attrs)
        assert not (attrs.get("src") or "").startswith(external), (page, attrs)
        if tag == "link":
            assert not attrs["href"].startswith(external), (page, attrs)
        if tag == "iframe":
            assert attrs.get("sandbox") == "" and "src" not in attrs, (page, attrs)
        assert not any(name.startswith("on") for name in attrs), (page, tag, attrs)
        href = attrs.get("href") if tag == "a" else None
        if href is None or href.startswith("#"):
            continue
        scheme = urlsplit(href).scheme
        assert scheme in ("", "http", "https"), (page, href)
        if not scheme:
            target = (page.parent / href.split("#", 1)[0]).resolve()
            assert target.is_file() and site.resolve() in target.parents, (page, href)


SAMPLE_KINDS = ["nlquad", "nq", "nq_questions", "jnq", "jboolq", "reqa_squad", "search_en",
                "categories", "nq_annotated", "jnq_annotated"]


@pytest.mark.parametrize("kind", SAMPLE_KINDS)
def test_every_sample_release_gives_a_safe_linked_deterministic_site(sample_releases, kind,
                                                                      tmp_path):
    release = sample_releases[kind]
    summary = write_site(str(release), str(tmp_path / "a"), page_size=5)
    assert summary["renderer"] == module_name(kind)
    assert summary["examples"]["entries"] > 0
    write_site(str(release), str(tmp_path / "b"), page_size=5)
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    for page in sorted((tmp_path / "a").rglob("*.html")):
        _check_page(tmp_path / "a", page)
