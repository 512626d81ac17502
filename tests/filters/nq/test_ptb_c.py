"""The C word splitter ``filters.nq._ptb`` against its Python reference
:func:`filters.nq.text_tokens.tokenize_text`: the documented examples, seeded random text
built to hit every rule, and every text run of the shared NQ pages (realdata)."""

from __future__ import annotations

import gzip
import json
import random
import time
from pathlib import Path

import pytest

from filters.nq import text_tokens

_ptb = pytest.importorskip("filters.nq._ptb")

NQ_PAGES = Path("nq") / "nq_dev_original_first3.jsonl.gz"  # under ../shared/data

EXAMPLES = [
    'He said "hello," then "bye".',
    "“curly” quotes",
    'a " b " c',
    "Earth's winds don't stop; I've seen Kids' Choice",
    "'Twas O'Bright's Humuhumunukunukuapua'a rock'n'roll it’s",
    "word 'trade,' meaning",
    "high-pressure Disney-ABC 2007-06-20 Bân-lâm-gú",
    "non-profit mid-summer X-ray semi-protected Non-Stop",
    "1940–1942 twice—in [edit] It... 208..145A …",
    "$7 million, 7,731,004 people, 17.2 km, 57% at 05:08, 30°S, 72/100",
    'from "https://en.wikipedia.org/w/index.php?title=A&oldid=1".',
    "Usinfo.state.gov, nobelprize.org and HSM2onstage.co.uk",
    "the U.S., a.k.a. America; A&M",
    "G. E. Pieter & J. J. Thomson and Carol G. Braham",
    "in the Caribbean. Archived on Random House. p. 1385.",
    "Marine Geology. 208 and Wayback Machine., HSM",
    "Mr. Fulton, St. Clair, Inc. p. 110 and Girl vs. Monster",
    "Warren Jr.) and (second ed.). Taylor, Jr.",
    # edge cases of the scanners
    "", " ", "\u200b", "\ufeff \xa0\t\n", '"', "'", "-", "--", "...", "a", ".", "$", "$7,",
    "1,2345 1,234,5678 1,234.5 $1,000.00, €3 £4.5 ¥6 ٣,٤٥٦ ²³",
    "a.bc.d ab.cd. ab.cd.e- ab..cd x-y.com. foo.Bar.baz9 a.bé",
    "HTTPS://x.y, Http://a Www.b ftp://c. httpſ://d wWw.e http:// www. http://\"a\"",
    "'s n't 've can't CAN'T ’s ’ll don’t x'y'z 'em",
    "G.\xa0E. U.S. A. b. C.\u200bD.",
    "Mr. MR. Dr. ſt. \u212at. vs. no. 1. a. B.",
]

PIECES = (
    list("abcxyzABCXYZ") + ["\u212a", "ſ", "İ", "ß", "é", "Σ", "ς", "中文", "ខ្មែរ", "ǅ"]
    + list("0123456789") + ["٣", "²", "½", "Ⅻ", "१"]
    + list(text_tokens._PUNCT) + ["-", "--", "---", "..", "...", "…"]
    + ['"', "“", "”", "„", "'", "’", "‘", "‚", "`"]
    + ["http://", "https://", "HTTP://", "ftp://", "www.", "WWW.", "wWw.", "httpſ://", "Ftp://"]
    + ["en.wikipedia.org", "a.co.uk", "x-y.com", "foo.Bar", "ab.c", ".org", ".uk."]
    + ["7,731,004", "17.2", "$7", "€3,000.5", "1,23", "1,2345", ".5", "¥"]
    + ["G. E. ", "U.S.", "a.k.a.", "Mr.", "mr.", "St.", "Jr.", "p.", "vs.", "No.", "Inc."]
    + ["'s", "n't", "'ve", "'ll", "'re", "'m", "'d", "N'T", "’S", "'t"]
    + ["non-", "anti-", "Pre-", "co-", "x-", "&", "A&M"]
    + [" ", " ", " ", "\xa0", "\u200b", "\ufeff", "\t", "\n", "\u3000", "\x85", "\x00"]
    + ["Word", "the", "and", "Caribbean", "n", "t", "s", "ll"]
)


def random_texts(seed: int, count: int) -> list[str]:
    """Deterministic strings glued from the fragments that trigger the rules."""
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
            for _ in range(count)]


def test_c_matches_python_on_the_examples() -> None:
    """Every string of test_text_tokens.py and a few scanner edge cases agree."""
    for text in EXAMPLES:
        assert _ptb.tokenize_text(text) == text_tokens.tokenize_text(text), text


def test_c_matches_python_on_random_text() -> None:
    """20,000 seeded random strings agree."""
    for text in random_texts(20240611, 20_000):
        assert _ptb.tokenize_text(text) == text_tokens.tokenize_text(text), repr(text)


DOTTED = ["1.", "a1.", "x-1.", "ab.", "a1.b2.cd.", "ab-", "1-", "x1.ab.", "1.ab.1.", "a.1."]


def test_c_matches_python_on_long_dotted_runs() -> None:
    """Runs of dotted segments, alone and cut by "..", "-" or a letters-only segment, agree
    (the domain scan reuses what it read for the earlier words of a run)."""
    rng = random.Random(7)
    for _ in range(300):
        text = "".join(rng.choice(DOTTED + ["..", "-", ".com", ".org.", " ", "x"])
                       for _ in range(rng.randint(1, 60)))
        assert _ptb.tokenize_text(text) == text_tokens.tokenize_text(text), repr(text)
    for shape in DOTTED:
        text = shape * 300
        assert _ptb.tokenize_text(text) == text_tokens.tokenize_text(text), shape


def test_long_dotted_runs_take_linear_time() -> None:
    """Each word of "1.1.1..." once scanned the rest of the run: 300 KB took half a minute
    (quadratic), now milliseconds."""
    for shape in ("1.", "a1.", "x-1."):
        start = time.perf_counter()
        tokens = _ptb.tokenize_text(shape * (300_000 // len(shape)))
        assert time.perf_counter() - start < 3.0, shape
        assert tokens


def test_c_rejects_non_str() -> None:
    """Bytes, None and numbers raise TypeError."""
    for value in (b"abc", None, 3, ["a"]):
        with pytest.raises(TypeError):
            _ptb.tokenize_text(value)


def recorded_runs(pages: Path) -> list[str]:
    """Every text run the Python walker hands to tokenize_text on the shared NQ pages."""
    from filters.nq import tokens

    runs: list[str] = []

    def record(text: str) -> list[text_tokens.Span]:
        runs.append(text)
        return text_tokens.tokenize_text(text)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tokens, "tokenize_text", record)
        with gzip.open(pages, "rt", encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    tokens.python_scan_nq_html(json.loads(line)["document_html"], None)
    return runs


@pytest.mark.realdata
def test_c_matches_python_on_real_nq_pages(shared_data: Path) -> None:
    """All text runs of the shared NQ pages agree."""
    pages = shared_data / NQ_PAGES
    if not pages.is_file():
        pytest.skip(f"{pages} is absent: real-data test skipped")
    runs = recorded_runs(pages)
    assert runs
    for text in runs:
        assert _ptb.tokenize_text(text) == text_tokens.tokenize_text(text), repr(text)
