"""The C word splitter ``filters.nq._ptb`` against its Python reference
:func:`filters.nq.text_tokens.tokenize_text`: the documented examples, seeded random text
built to hit every rule (its fragments drawn from the sets the C tables mirror, so that a set
changed in Python alone fails it), and every text run of the shared NQ pages (realdata)."""

from __future__ import annotations

import functools
import gzip
import json
import random
import re
import time
from pathlib import Path

import pytest

from filters.nq import gen_c_tables, text_tokens

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


def _set_fragments() -> dict[str, list[str]]:
    """Fragments made of the sets the C tables mirror (gen_c_tables): every abbreviation,
    hyphen prefix and clitic as written (lower, Title, UPPER case), every character of the
    character sets, each opener before a double quote, each currency sign before a number,
    each URL trail after a URL."""
    words = gen_c_tables.ptb_words()
    chars = gen_c_tables.ptb_chars()
    cased = [str.lower, str.title, str.upper]
    return {
        "abbreviations": [f"{case(word)}." + end for word in sorted(words["ABBREVIATIONS"])
                          for case in cased for end in ("", " ")],
        "prefixes": [f"{case(word)}-" for word in sorted(words["HYPHEN_PREFIXES"])
                     for case in cased],
        "clitics": [apostrophe + case(word) for word in sorted(words["CLITICS"])
                    for case in cased for apostrophe in sorted(chars["APOSTROPHES"])],
        "punctuation": sorted(chars["PUNCT"] | chars["DQUOTES"] | chars["APOSTROPHES"]
                              | set(text_tokens._TRANSLATE)),
        "openers": [opener + quote for opener in sorted(text_tokens.OPENERS)
                    for quote in sorted(chars["DQUOTES"])],
        "numbers": [sign + number for sign in sorted(chars["CURRENCY"])
                    for number in ("7", "3,000.5", "1,23")],
        "urls": [f"{url}{end}" for url in ("http://a.b", "www.c")
                 for end in sorted(chars["URL_TRAIL"])],
    }


# Fragments that trigger the rules the sets do not name; then the set fragments.
FRAGMENTS: dict[str, list[str]] = {
    "letters": list("abcxyzABCXYZ") + ["\u212a", "ſ", "İ", "ß", "é", "Σ", "ς", "中文", "ខ្មែរ", "ǅ"],
    "digits": list("0123456789") + ["٣", "²", "½", "Ⅻ", "१"],
    "dashes": ["-", "--", "---", "..", "...", "…", "‚", "`", "&", "A&M"],
    "schemes": ["http://", "https://", "HTTP://", "ftp://", "www.", "WWW.", "wWw.", "httpſ://",
                "Ftp://"],
    "domains": ["en.wikipedia.org", "a.co.uk", "x-y.com", "foo.Bar", "ab.c", ".org", ".uk."],
    "amounts": ["7,731,004", "17.2", "1,23", "1,2345", ".5"],
    "initials": ["G. E. ", "U.S.", "a.k.a.", "A. B.", "n't", "N'T", "'t"],
    "spaces": [" ", " ", " ", "\xa0", "\u200b", "\ufeff", "\t", "\n", "\u3000", "\x85", "\x00"],
    "words": ["Word", "the", "and", "Caribbean", "n", "t", "s", "ll"],
    **_set_fragments(),
}
_KINDS = sorted(FRAGMENTS)


@functools.cache
def random_texts(seed: int, count: int) -> list[str]:
    """Deterministic strings glued from fragments of random kinds."""
    rng = random.Random(seed)
    return ["".join(rng.choice(FRAGMENTS[rng.choice(_KINDS)]) for _ in range(rng.randint(0, 10)))
            for _ in range(count)]


RANDOM_SEED, RANDOM_COUNT = 20240611, 10_000


def test_c_matches_python_on_the_examples() -> None:
    """Every string of test_text_tokens.py and a few scanner edge cases agree."""
    for text in EXAMPLES:
        assert _ptb.tokenize_text(text) == text_tokens.tokenize_text(text), text


def test_c_matches_python_on_random_text() -> None:
    """10,000 seeded random strings agree."""
    for text in random_texts(RANDOM_SEED, RANDOM_COUNT):
        assert _ptb.tokenize_text(text) == text_tokens.tokenize_text(text), repr(text)


def _spans(text: str) -> list[tuple[int, int]]:
    return [(start, end) for start, end, _ in text_tokens.tokenize_text(text)]


def _where_they_decide(table: str, words: list[str]) -> re.Pattern[str]:
    """Any of ``words`` (ASCII letters in any case) as a whole atom where its set decides:
    before a final period, before a hyphen, after an apostrophe."""
    alone_before, alone_after = r"(?<![^\W_])", r"(?![^\W_])"
    apostrophes = "".join(sorted(gen_c_tables.ptb_chars()["APOSTROPHES"]))
    before, after = {"ABBREVIATIONS": (alone_before, r"(?=\.)"),
                     "HYPHEN_PREFIXES": (alone_before, "(?=-)"),
                     "CLITICS": (f"(?<=[{re.escape(apostrophes)}])", alone_after)}[table]
    alternatives = "|".join(map(re.escape, sorted(words, key=lambda word: (-len(word), word))))
    return re.compile(f"{before}(?ai:{alternatives}){after}")


@pytest.mark.parametrize("table", gen_c_tables.PTB_WORDS)
def test_every_word_of_the_sets_changes_some_random_text(table: str) -> None:
    """Without monkeypatching: for each word of the set, some random text splits differently
    when that word is made "zz..." where the set decides (same length, in no set), so a C table
    without the word, which reads the text as the renamed one, fails the random-text test. One-
    letter abbreviations are the exception: a letter keeps its period as an initial anyway."""
    words = sorted(gen_c_tables.ptb_words()[table])
    assert not any(set(word) == {"z"} for word in words)
    texts: dict[str, list[str]] = {}
    anywhere = _where_they_decide(table, words)
    for text in random_texts(RANDOM_SEED, RANDOM_COUNT):
        for m in anywhere.finditer(text):
            texts.setdefault(m.group().lower(), []).append(text)
    for word in words:
        if table == "ABBREVIATIONS" and len(word) == 1:
            continue
        pattern = _where_they_decide(table, [word])
        assert any(_spans(text) != _spans(pattern.sub("z" * len(word), text))
                   for text in texts.get(word, [])), word


def test_every_character_of_the_sets_is_in_some_random_text() -> None:
    """Each character of the character sets, each opener before a double quote, each currency
    sign before a digit and each URL trail after a URL occur in the random texts."""
    corpus = "\n".join(random_texts(RANDOM_SEED, RANDOM_COUNT))
    chars = gen_c_tables.ptb_chars()
    for name, members in chars.items():
        assert all(ch in corpus for ch in members), name
    assert all(ch in corpus for ch in text_tokens._TRANSLATE)
    assert all(re.search(re.escape(opener) + "[" + "".join(chars["DQUOTES"]) + "]", corpus)
               for opener in text_tokens.OPENERS)
    assert all(sign + "7" in corpus for sign in chars["CURRENCY"])
    assert all("www.c" + ch in corpus for ch in chars["URL_TRAIL"])




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
