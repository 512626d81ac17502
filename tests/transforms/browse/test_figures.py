"""histogram_svg: deterministic inline SVG, escaped labels, ids unique per figure."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from transforms.browse.figures import (
    MAX_BARS,
    histogram_svg,
    weighted_mean,
    weighted_quantile,
)

COUNTS = {3: 4, 4: 10, 5: 7, 9: 1}
SVG = "{http://www.w3.org/2000/svg}"


def _ids(svg: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', svg))


def _bars(svg: str) -> int:
    root = ET.fromstring(svg)
    return sum(1 for path in root.iter(f"{SVG}path")
               if "#6b8fb5" in (path.get("style") or ""))


def test_weighted_mean_and_quantile():
    assert weighted_mean(COUNTS) == (3 * 4 + 4 * 10 + 5 * 7 + 9) / 22
    assert weighted_mean({}) == 0.0
    assert weighted_quantile(COUNTS, 0.5) == 4
    assert weighted_quantile(COUNTS, 0.99) == 9


def test_same_counts_same_bytes():
    first = histogram_svg(COUNTS, "question words", 7, weighted_mean(COUNTS))
    assert first == histogram_svg(dict(reversed(COUNTS.items())), "question words", 7,
                                  weighted_mean(COUNTS))


def test_inline_svg_without_header_date_or_creator():
    svg = histogram_svg(COUNTS, "question words", 7, weighted_mean(COUNTS))
    assert svg.startswith("<svg ")
    assert "<?xml" not in svg and "<!DOCTYPE" not in svg
    assert "dc:date" not in svg and "Matplotlib v" not in svg
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert root.get("role") == "img" and root.get("aria-label") == "Histogram of question words"
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "ours: mean 4.4" in texts and "paper: mean 7" in texts
    assert "question words" in texts
    assert _bars(svg) == len(COUNTS)


def test_without_paper_mean_only_ours():
    svg = histogram_svg(COUNTS, "answer words", None, weighted_mean(COUNTS))
    assert "paper: mean" not in svg and "ours: mean" in svg


def test_label_is_escaped_and_never_mathtext():
    label = '<script>alert("x")</script> $\\alpha$ & co'
    svg = histogram_svg(COUNTS, label, None, 4.0)
    assert "<script" not in svg
    root = ET.fromstring(svg)
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert any('<script>alert("x")</script> $\\alpha$ & co' in t for t in texts)
    assert root.get("aria-label") == f"Histogram of {label}"


def test_ids_unique_between_figures_and_references_resolve():
    first = histogram_svg(COUNTS, "question words", 7, 4.4)
    second = histogram_svg(COUNTS, "answer words", 175, 4.4)
    assert not _ids(first) & _ids(second)
    for svg in (first, second):
        references = set(re.findall(r"url\(#([^)]+)\)", svg))
        references |= set(re.findall(r'href="#([^"]+)"', svg))
        assert references and references <= _ids(svg)


def test_wide_range_is_binned_and_long_tail_noted():
    counts = {value: 1 + value % 5 for value in range(0, 5000, 3)}
    counts[1_000_000] = 2
    svg = histogram_svg(counts, "document tokens", 877, weighted_mean(counts))
    assert 0 < _bars(svg) <= MAX_BARS
    hidden, cut = re.search(r"\(([\d,]+) values above ([\d,]+) \(max 1,000,000\) not drawn",
                            svg).groups()
    cut_value = int(cut.replace(",", ""))
    assert cut_value == weighted_quantile(counts, 0.99) < 5000
    assert int(hidden.replace(",", "")) == sum(n for v, n in counts.items() if v > cut_value)


def test_empty_counts_still_draw():
    svg = histogram_svg({}, "question words", 7, 0.0)
    assert "no values" in svg and "paper: mean 7" in svg and "ours: mean" not in svg
    ET.fromstring(svg)
