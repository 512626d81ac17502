"""Small hostile corpora for the accounting invariants, written into a test's tmp_path."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

from transforms.sources.page_files import SAMPLE_DIR, SAMPLE_PACKAGE, sample_index

GOOD_PAGES = ("eraB_2016_health-37123456.html", "eraB_2017_business-39876543.html")


def nlquad_html(root: Path) -> tuple[str, int]:
    """Two sample articles, a video page, a page with no URL and a corrupt ``.gz`` file.
    Returns the input glob and the number of files."""
    from importlib import resources

    pages = resources.files(SAMPLE_PACKAGE).joinpath(*SAMPLE_DIR, "pages")
    index = sample_index()
    root.mkdir(parents=True, exist_ok=True)
    lines = ["file\turl\ttimestamp"]
    for name in GOOD_PAGES:
        (root / name).write_bytes(pages.joinpath(name).read_bytes())
        lines.append(f"{name}\t{index[name][0]}\t{index[name][1]}")
    (root / "video.html").write_text("<html><body><p>clip</p></body></html>")
    lines.append("video.html\thttps://www.bbc.co.uk/news/av/world-12345678\t20180101000000")
    (root / "nourl.html").write_text("<html><body><p>no address anywhere</p></body></html>")
    (root / "corrupt.html.gz").write_bytes(b"\x1f\x8b\x08\x00 this is not gzip at all")
    (root / "index.tsv").write_text("\n".join(lines) + "\n")
    return str(root / "*.html*"), 5


def query_log(path: Path, good: list[tuple[str, str, str]], bad_lines: list[str]) -> Path:
    """A TSV query log: ``good`` (query, timestamp, user) rows and raw malformed lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = ["query\ttimestamp\tuser_id"]
    rows += ["\t".join(row) for row in good]
    rows += bad_lines
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


BAD_LOG_LINES = ["\t2018-01-01T00:00:00\tu1", "who wrote the book\tnot-a-time\tu2",
                 "only one column"]


def categories_corpus(root: Path) -> tuple[list[str], int]:
    """A text file with Hearst patterns and a JSONL file that does not parse."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "good.txt").write_text(
        "Fruits such as apples, pears and plums grow here.\n"
        "He plays instruments such as the violin and the cello.\n", encoding="utf-8")
    (root / "broken.jsonl").write_text('{"text": "fine"}\n{not json\n', encoding="utf-8")
    return [str(root / "*.txt"), str(root / "*.jsonl")], 2


def enterprise_dump(path: Path, lang: str = "en") -> tuple[str, int, int]:
    """A Wikimedia Enterprise ``.json.tar.gz`` with 2 articles and 2 malformed lines.
    Returns the glob, the good records and the malformed lines."""
    def article(name: str, body: str) -> str:
        return json.dumps({"name": name, "namespace": {"identifier": 0},
                           "version": {"identifier": 7},
                           "url": f"https://{lang}.wikipedia.org/wiki/{name}",
                           "article_body": {"html": f"<html><body><p>{body}</p></body></html>"}})
    lines = [article("Trade_winds", "Trade winds blow from the east."), "{broken",
             article("Monsoon", "A monsoon is a seasonal wind."), json.dumps({"name": "x"})]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        member = tarfile.TarInfo("enwiki_0.ndjson")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    path.write_bytes(buffer.getvalue())
    return str(path), 2, 2


def nq_lines(path: Path, good: list[dict], bad: list[str]) -> str:
    """An NQ original-format ``.jsonl.gz`` of ``good`` examples and raw malformed lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join([json.dumps(example) for example in good] + bad) + "\n"
    path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    return str(path)
