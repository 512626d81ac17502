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


def query_log(path: Path, good: list[tuple[str, str, str]],
              bad_lines: list[str | bytes]) -> Path:
    """A TSV query log: ``good`` (query, timestamp, user) rows and raw malformed lines (a
    ``bytes`` line is written as is, e.g. one that is not UTF-8)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [b"query\ttimestamp\tuser_id"]
    rows += ["\t".join(row).encode("utf-8") for row in good]
    rows += [line if isinstance(line, bytes) else line.encode("utf-8") for line in bad_lines]
    path.write_bytes(b"\n".join(rows) + b"\n")
    return path


BAD_LOG_LINES = ["\t2018-01-01T00:00:00\tu1", "who wrote the book\tnot-a-time\tu2",
                 "only one column"]

# A Japanese log: rows the reader dead-letters (log.malformed_rows) ...
JA_BAD_LOG_LINES: list[str | bytes] = [
    "\t2019-06-03T00:00:00Z\tj1",                              # no query
    "織田信長はなぜ本能寺で殺されたのか\tnot-a-time\tj2",        # bad timestamp
    "列がひとつだけ",                                            # one column
    "富士山の高さは何メートルですか".encode("shift_jis") + b"\t2019-06-03T00:00:00Z\tj3",
    "富士山の高さは\x07何メートルですか\t2019-06-03T00:00:00Z\tj4",  # control character
]
# ... and rows it reads whose queries the selection rejects (queries.rejected.<reason>).
JA_REJECTED_ROWS = [
    ("なぜ" * 300 + "ですか？", "2019-06-03T05:00:00Z", "j5"),       # too long
    ("祖母は何でも手作りする人だった", "2019-06-03T06:00:00Z", "j6"),  # no pattern
]
JA_GOOD_ROWS = [
    ("織田信長はなぜ本能寺で殺されたのか", "2019-06-03T03:04:40Z", "j7"),
    ("新幹線はなぜ時間通りに走れるの？", "2019-06-03T10:21:38Z", "j8"),
    ("新幹線はなぜ時間通りに走れるの？", "2019-06-04T10:21:38Z", "j9"),
]


def categories_corpus(root: Path) -> tuple[list[str], int]:
    """A text file with Hearst patterns and a JSONL file with one line that does not parse:
    both files are read, and the bad line alone is dead-lettered."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "good.txt").write_text(
        "Fruits such as apples, pears and plums grow here.\n"
        "He plays instruments such as the violin and the cello.\n", encoding="utf-8")
    (root / "broken.jsonl").write_text('{"text": "fine"}\n{not json\n', encoding="utf-8")
    return [str(root / "*.txt"), str(root / "*.jsonl")], 2


def enterprise_dump(path: Path, lang: str = "en") -> tuple[str, int, int, int]:
    """A Wikimedia Enterprise ``.json.tar.gz`` with 2 articles, 4 malformed lines (not JSON,
    no body, not an object, a namespace that is not an object) and 1 talk page (namespace 1).
    Returns the glob, the good records, the malformed lines and the records not articles."""
    def article(name: str, body: str, namespace: int = 0) -> str:
        return json.dumps({"name": name, "namespace": {"identifier": namespace},
                           "version": {"identifier": 7},
                           "url": f"https://{lang}.wikipedia.org/wiki/{name}",
                           "article_body": {"html": f"<html><body><p>{body}</p></body></html>"}})
    lines = [article("Trade_winds", "Trade winds blow from the east."), "{broken",
             article("Talk:Monsoon", "Should this be merged?", namespace=1),
             article("Monsoon", "A monsoon is a seasonal wind."), json.dumps({"name": "x"}),
             "[1, 2]", json.dumps({"name": "y", "namespace": 1})]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        member = tarfile.TarInfo("enwiki_0.ndjson")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    path.write_bytes(buffer.getvalue())
    return str(path), 2, 4, 1


def nq_lines(path: Path, good: list[dict], bad: list[str]) -> str:
    """An NQ original-format ``.jsonl.gz`` of ``good`` examples and raw malformed lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join([json.dumps(example) for example in good] + bad) + "\n"
    path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    return str(path)


REQA_NQ_SAMPLE = ("pipelines", "samples", "reqa", "nq_sample.jsonl.gz")


def reqa_nq(path: Path) -> tuple[str, dict[str, int]]:
    """An NQ ``.jsonl.gz`` for ReQA: the bundled sample, copies that drop with a reason, lines
    that are not JSON, not an object, not UTF-8 or miss a field, and a blank line. Returns
    the glob and the expected ``examples`` counts (``read``: non-blank lines)."""
    from importlib import resources

    sample = resources.files(REQA_NQ_SAMPLE[0]).joinpath(*REQA_NQ_SAMPLE[1:])
    good = [json.loads(line) for line in
            gzip.decompress(sample.read_bytes()).decode("utf-8").splitlines() if line.strip()]
    base = good[0]
    no_annotation = {**base, "example_id": 1, "annotations": []}
    empty_question = {**base, "example_id": 2, "question_text": "  "}
    null_long = {**base, "example_id": 3, "annotations": [
        {**base["annotations"][0], "long_answer": {"start_token": -1, "end_token": -1,
                                                   "candidate_index": -1}}]}
    no_short = {**base, "example_id": 4, "annotations": [
        {**base["annotations"][0], "short_answers": []}]}
    missing_field = {key: value for key, value in base.items() if key != "document_tokens"}
    lines = [json.dumps(example).encode("utf-8")
             for example in [*good, no_annotation, empty_question, null_long, no_short]]
    malformed = [b"{not json", b"[1, 2, 3]", b'"a string"', "\u00e9t\u00e9".encode("latin-1"),
                 json.dumps(missing_field).encode("utf-8")]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(b"\n".join([*lines, b"", *malformed]) + b"\n", mtime=0))
    return str(path), {"read": len(lines) + len(malformed), "malformed": len(malformed),
                       "dropped": 4}


def reqa_squad(root: Path) -> tuple[str, int]:
    """SQuAD files for ReQA: a file of the wrong shape, a file that is not JSON and a file
    with good, dropped and malformed questions and answers. Returns the glob and the number
    of files."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "wrong_shape.json").write_text(json.dumps({"data": {"title": "x"}}))
    (root / "not_json.json").write_text("{broken")
    context = ("Harrow Point Lighthouse stands on a granite reef. It was built in 1810. "
               "The tower is 35 metres tall.")
    qas = [
        {"id": "good-1", "question": "When was it built?",
         "answers": [{"text": "1810", "answer_start": context.index("1810")}]},
        {"id": "good-2", "question": "How tall is the tower?",
         "answers": [{"text": "35 metres", "answer_start": context.index("35 metres")}]},
        {"id": "offset", "question": "Where does it stand?",
         "answers": [{"text": "granite reef", "answer_start": 0}]},
        {"id": "no-answer", "question": "Who built it?", "answers": []},
        {"id": "empty", "question": " ", "answers": [{"text": "1810", "answer_start": 60}]},
        {"id": "bad-answer", "question": "What is it?", "answers": ["a lighthouse"]},
        {"id": "bad-start", "question": "What is it made of?",
         "answers": [{"text": "granite", "answer_start": "x"}]},
        {"question": "A question without an id?"},
        "not a question object",
    ]
    data = {"version": "1.1", "data": [
        {"title": "Harrow Point", "paragraphs": [
            {"context": context, "qas": qas},
            {"context": 42, "qas": [{"id": "in-bad-paragraph", "question": "Why?",
                                     "answers": []}]},
            {"context": "A paragraph without questions. It is indexed too."},
        ]},
        {"title": "No paragraphs", "paragraphs": "not a list"},
    ]}
    (root / "squad.json").write_text(json.dumps(data))
    return str(root / "*.json"), 3
