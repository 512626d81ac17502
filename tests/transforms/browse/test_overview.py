"""write_overview: every section from a release's stats and manifest, escaped, deterministic."""

from __future__ import annotations

import copy
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pyarrow as pa

from transforms.browse.base import ReleaseView
from transforms.browse.overview import kappa_band, number, overview_body, write_overview
from transforms.release.tables import Table

HOSTILE = '<script>alert("x")</script>'
VOID = {"meta", "link", "br", "img", "input", "hr", "wbr", "source", "col", "area", "base",
        "embed", "param", "track"}


class Renderer:
    title = "NLQuAD"
    columns = ("title",)
    details_per_page = 1
    paper_means = {"question words": 7.0}

    def entries(self, release, table, rows):
        return iter(())

    def measures(self, row):
        return {}


def _tables(rows: dict[str, int]) -> list[Table]:
    split = {"train": "train", "dev": "validation", "test": "test"}
    return [Table(config="default", split=split.get(d, d), directory=d,
                  files=(f"{d}/{d}-00000-of-00001.parquet",), rows=n, schema=pa.schema([]))
            for d, n in rows.items()]


NLQUAD_STATS: dict[str, Any] = {
    "counts": {
        "input": {"pages": 33},
        "pages": {"read": 33, "parsed": 28, "skipped.index_page": 1, "skipped.live_page": 3},
        "questions": {"found": 43, "kept": 39, "dropped.empty_answer": 1,
                      "dropped.bullet_list_answer": 2},
    },
    "lengths": {"all": {"answer_words": {"count": 39, "max": 89, "mean": 63.13, "median": 67,
                                         "min": 44, "p90": 80}},
                "train": {"answer_words": {"count": 32, "max": 83, "mean": 61.88,
                                           "median": 65, "min": 44, "p90": 75}}},
    "paper_reference": {"answer_words_mean": 175, "question_words_mean": 7,
                        "documents": 13000, "source": "Soleimani et al., Table 2"},
    "question_prefixes": {"first_word": [{"count": 13, "prefix": "what", "share": 0.3333}],
                          "first_two_words": [{"count": 4, "prefix": "why are",
                                               "share": 0.1026}]},
    "baselines": {"metrics": ["iou", "f1"], "n": 3, "note": "Windows of 79 words.",
                  "rows": [{"f1": 0.2796, "iou": 0.0179, "name": "first window"}],
                  "split": "dev"},
    "leakage": {"documents": {"column": "document_url", "count": 1, "pairs": {"train/dev": 1},
                              "rows": 2,
                              "examples": [{"document": "https://example.org/a?x=1&y=2",
                                            "rows": [{"id": "r1", "split": "train"},
                                                     {"id": "r2", "split": "dev"}],
                                            "splits": {"dev": 1, "train": 1}}]},
                "questions": {"column": "question", "count": 0, "examples": [], "pairs": {},
                              "rows": 0},
                "rows": {"train": 32, "dev": 3, "test": 4}, "splits": ["train", "dev", "test"]},
}

ANNOTATED_STATS: dict[str, Any] = {
    "counts": {"examples": {"read": 30, "kept": 19}},
    "fleiss_kappa": {"long_answer": 0.3888, "span": 0.6512, "yes_no_answer": -0.0145},
    "worker_agreement": {"w001": {"agreement": 0.8, "compared": 15, "judgments": 15},
                         "w007": {"agreement": 0.4, "compared": 10, "judgments": 15}},
    "quality": {"questions": 19,
                "table2": {"EXIST": {"none": 6, "span": 13, "yes_no": 0},
                           "NONE": {"none": 71, "span": 0, "yes_no": 0}},
                "yes_no": {"NO": 0, "YES": 2}},
    "simulated_votes": 2020,
}


def _manifest(dataset: str = "nlquad", **options: Any) -> dict[str, Any]:
    return {"dataset": dataset, "version": "1.0.0", "created": "2026-01-02T03:04:05Z",
            "run_id": "abc123", "code": {"package": "qa", "version": "0.1.0",
                                         "git_commit": "deadbeef"},
            "options": {"command": "python -m pipelines.build_nlquad", "split_salt": "nlquad",
                        "split_ratios": {"dev": 0.1, "train": 0.9}, **options},
            "source": {"kind": "html", "pattern": "pages/*.html"}, "files": {}}


def _view(stats: dict[str, Any], manifest: dict[str, Any] | None = None,
          rows: dict[str, int] | None = None) -> ReleaseView:
    return ReleaseView("/nowhere", manifest or _manifest(), stats,
                       _tables(rows or {"train": 32, "dev": 3, "test": 4}))


def _write(tmp_path: Path, view: ReleaseView, histograms=None) -> str:
    write_overview(str(tmp_path), view, histograms or {}, Renderer())
    return (tmp_path / "index.html").read_text(encoding="utf-8")


class Balance(HTMLParser):
    """Fails on a closing tag that does not close the innermost open element."""

    def __init__(self):
        super().__init__()
        self.stack: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()


def _balanced(html: str) -> None:
    parser = Balance()
    parser.feed(html)
    parser.close()
    assert parser.stack == []


def test_rows_funnel_and_reasons(tmp_path):
    html = _write(tmp_path, _view(NLQUAD_STATS))
    _balanced(html)
    assert "<title>NLQuAD · nlquad 1.0.0</title>" in html
    assert "Input: 33 pages → kept: 39 rows in the release." in html
    assert ("<th>dev</th><td>default</td><td>validation</td><td class=\"num\">3</td>"
            "<td class=\"num\">1</td>") in html
    questions = html[html.index("<h3>questions</h3>"):]
    questions = questions[:questions.index("</div>")]
    assert questions.index("found") < questions.index("bullet_list_answer") \
        < questions.index("empty_answer")
    assert ('<span class="reason">dropped:</span> bullet_list_answer</th>'
            '<td class="num">2</td>') in questions
    assert "3 left out in total." in questions
    assert '<span class="reason">skipped:</span> live_page' in html
    assert html.index("<h3>input</h3>") < html.index("<h3>pages</h3>")


def test_lengths_histograms_and_paper_means(tmp_path):
    histograms = {"question words": {3: 4, 4: 10, 5: 7}, "answer words": {60: 3, 70: 2}}
    html = _write(tmp_path, _view(NLQUAD_STATS), histograms)
    assert html.count("<svg ") == 2 and "cdn" not in html.lower()
    assert "question words: our mean 4.14 over 21 values; the paper reports 7<" in html
    assert "answer words: our mean 64 over 5 values; the paper reports 175<" in html
    assert "paper: mean 175" in html
    lengths = html[html.index('class="lengths"'):]
    assert re.search(r"<th>answer words</th><td>all</td>.*?"
                     r"<td class=\"num\">63.13</td>.*?<td class=\"num\">175</td>", lengths)
    assert lengths.index(">all<") < lengths.index(">train<")
    assert "Paper reference: Soleimani et al., Table 2; documents <strong>13,000</strong>." \
        in html


def test_prefixes_baselines_leakage_and_build(tmp_path):
    html = _write(tmp_path, _view(NLQUAD_STATS))
    assert "<th>why are</th><td class=\"num\">4</td><td class=\"num\">10.3%</td>" in html
    assert ("<th>baseline</th><th>iou</th><th>f1</th>" in html
            and "<th>first window</th><td class=\"num\">0.018</td>"
                "<td class=\"num\">0.280</td>" in html)
    assert "Windows of 79 words." in html and "Split: dev; scored examples: 3." in html
    assert ('<a href="https://example.org/a?x=1&amp;y=2" rel="noopener noreferrer nofollow">'
            in html)
    assert "documents (<code>document_url</code>) in two or more splits: 1 (2 rows; " \
           "train/dev 1)." in html
    assert "<pre><code>python -m pipelines.build_nlquad</code></pre>" in html
    assert "<code>split_salt</code></th><td><code>&quot;nlquad&quot;</code>" in html
    assert "<code>split_ratios</code>" in html and "deadbeef" in html
    assert "<code>--split" not in html  # names as recorded, not flags that may not exist
    assert "More statistics" not in html and "Annotation agreement" not in html


class Links(HTMLParser):
    """Every ``<a>``: its ``href`` and text as a browser reads them (references decoded)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[list[str]] = []
        self.open = False

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.links.append([dict(attrs).get("href") or "", ""])
            self.open = True

    def handle_endtag(self, tag):
        self.open = self.open and tag != "a"

    def handle_data(self, data):
        if self.open:
            self.links[-1][1] += data


def test_nq_leakage_links_are_escaped_once_and_keep_the_pinned_revision(tmp_path):
    stats = copy.deepcopy(NLQUAD_STATS)
    stored = "https://en.wikipedia.org//w/index.php?title=Trade_winds&amp;oldid=42"  # NQ form
    url = "https://en.wikipedia.org//w/index.php?title=Trade_winds&oldid=42"
    for column in ("document.url", "document_url"):  # NQ; JNQ and JBoolQ
        stats["leakage"]["documents"]["column"] = column
        stats["leakage"]["documents"]["examples"][0]["document"] = stored
        html = _write(tmp_path, _view(stats))
        _balanced(html)
        assert "&amp;amp;" not in html
        assert f'<a href="{stored}" rel="noopener noreferrer nofollow">{stored}</a>' in html
        parser = Links()
        parser.feed(html)
        assert [url, url] in parser.links  # what the browser follows and shows


def test_annotation_agreement(tmp_path):
    html = _write(tmp_path, _view(ANNOTATED_STATS, rows={"train": 16, "dev": 3}))
    _balanced(html)
    assert "<th>span</th><td class=\"num\">0.651</td><td>substantial</td>" in html
    assert "<th>yes_no_answer</th><td class=\"num\">-0.015</td><td>poor</td>" \
        in html
    assert "2 workers; agreement with the majority over 25 compared judgments: 0.640." in html
    assert html.index("<th>w007</th>") < html.index("<th>w001</th>")
    assert ("<th></th><th>none</th><th>span</th><th>yes_no</th>" in html
            and "<th>EXIST</th><td class=\"num\">6</td><td class=\"num\">13</td>" in html)
    assert "NO <strong>0</strong> · YES <strong>2</strong>" in html
    assert "<th>simulated_votes</th><td class=\"num\">2,020</td>" in html
    assert "Input:" not in html and "Kept: 19 rows in the release." in html


def test_kappa_bands_and_numbers():
    assert [kappa_band(k) for k in (-0.1, 0.1, 0.3, 0.5, 0.7, 0.9)] == [
        "poor", "slight", "fair", "moderate", "substantial", "almost perfect"]
    assert [number(v) for v in (1234, 0.2796, 63.134, 11712.74, None, True)] == [
        "1,234", "0.280", "63.13", "11,713", '<span class="muted">—</span>', "yes"]


def test_release_without_statistics(tmp_path):
    manifest = _manifest("search_en")
    manifest["options"] = {}
    manifest.pop("source")
    html = _write(tmp_path, _view({}, manifest, rows={"docs": 46}))
    _balanced(html)
    assert "46 rows in docs" in html
    for absent in ("Input → kept", "Lengths", "Baselines", "Leakage", "More statistics",
                   "with these options"):
        assert absent not in html
    assert "python -m pipelines.&lt;pipeline&gt;" in html


def test_flat_lengths_and_other_statistics(tmp_path):
    stats = {"lengths": {"sentence_words": {"count": 16, "max": 19, "mean": 12.69,
                                            "median": 13, "min": 6, "p90": 16}},
             "drop_reasons": {"answer_offset_mismatch": 1},
             "correct_per_question": {"1": 8, "2": 2}, "paragraphs": 5}
    html = _write(tmp_path, _view(stats, rows={"questions": 10, "candidates": 16}))
    assert "<th>sentence words</th><td>all</td><td class=\"num\">16</td>" in html
    assert "answer_offset_mismatch <strong>1</strong>" in html
    assert "<th>paragraphs</th><td class=\"num\">5</td>" in html


def test_every_text_is_escaped(tmp_path):
    stats = copy.deepcopy(NLQUAD_STATS)
    stats["counts"][HOSTILE] = {f"dropped.{HOSTILE}": 2, HOSTILE: 1}
    stats["question_prefixes"]["first_word"].append({"count": 1, "prefix": HOSTILE,
                                                     "share": 0.1})
    stats["baselines"]["rows"].append({"name": HOSTILE, "f1": HOSTILE})
    stats["baselines"]["note"] = HOSTILE
    stats["leakage"]["questions"]["examples"] = [{"question": HOSTILE,
                                                  "splits": {HOSTILE: 1},
                                                  "rows": [{"id": HOSTILE, "split": "dev"}]}]
    stats["leakage"]["documents"]["examples"].append(
        {"document": "javascript:alert(1)", "splits": {"dev": 1}})
    stats["quality"] = {HOSTILE: {HOSTILE: HOSTILE}}
    stats["paper_reference"]["source"] = HOSTILE
    stats[HOSTILE] = [HOSTILE]
    manifest = _manifest(HOSTILE, note=HOSTILE)
    manifest["options"]["command"] = HOSTILE
    manifest["source"] = {HOSTILE: HOSTILE}
    view = _view(stats, manifest)
    view.tables[0] = Table(config=HOSTILE, split=HOSTILE, directory=HOSTILE, files=(),
                           rows=1, schema=pa.schema([]))
    html = _write(tmp_path, view, {HOSTILE: {1: 2}})
    _balanced(html)
    assert "<script" not in html
    assert 'href="javascript' not in html and "javascript:alert(1)" in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html


def test_same_release_same_bytes(tmp_path):
    histograms = {"question words": {3: 4, 4: 10, 5: 7}}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _write(tmp_path / "a", _view(NLQUAD_STATS), histograms)
    second = _write(tmp_path / "b", _view(NLQUAD_STATS), histograms)
    assert first == second
    assert overview_body(_view(NLQUAD_STATS), histograms, Renderer()) in first
