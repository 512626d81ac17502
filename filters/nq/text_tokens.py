"""PTB-style word tokenization of the text between HTML tags, as NQ's document tokens
(Kwiatkowski et al. 2019, §4.1).

:func:`tokenize_text` splits one run of plain text (inline tags already removed, entities
unescaped) into words with character spans: PTB quotes and brackets, clitics, hyphens split
except after CoreNLP's prefixes, URLs, numbers, domains, acronyms and initials kept whole, and
NQ's final-period rules. :mod:`filters.nq.tokens` walks the HTML and maps the spans to bytes.
``_ptb.c`` is the same function in C, which the walker uses when it is built; this module is
the reference it is tested against.
"""

from __future__ import annotations

import re

_PUNCT = ("!\"#%&'()*+,./:;<=>?@[\\]^`{|}~$«»‹›“”„‘’‚–—―…°®©™§¶•·¿¡′″€£¥¢"
          "、。，：；！？（）《》〈〉「」『』【】〔〕،؛؟।")
_ATOM = re.compile(r"(\.{2,}|-{2,})|([" + re.escape(_PUNCT) + r"])|([^" + re.escape(_PUNCT)
                   + r"\-]+)|(-)")
_CHUNK = re.compile(r"[^\s\u200b\ufeff]+")
_PLAIN = re.compile(r"[^" + re.escape(_PUNCT) + r"\-]+\Z")
_DOMAIN = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-]|\.[A-Za-z0-9])")
_URL = re.compile(r"(?:https?|ftp)://[^\s\"<>]+|www\.[^\s\"<>]+", re.I)
_URL_TRAIL = ".,;:!?)]'\"”’"
# A superset of what _join_initials joins: a letter, a period, one space, a letter, a period.
_INITIALS_GAP = re.compile(r"[^\W\d_]\.[ \xa0][^\W\d_]\.")
_NUMBER = re.compile(r"[$€£¥]?\d+(?:,\d{3})*(?:\.\d+)?(?![\d])")
CLITICS = frozenset({"s", "m", "d", "ll", "re", "ve"})
APOSTROPHES = frozenset({"'", "’"})
DQUOTES = frozenset({'"', "“", "”", "„"})
OPENERS = frozenset({"(", "[", "{", "“", "‘", "`", "-", "--", "/"})
# CoreNLP PTBLexer: hyphenated words that splitHyphenated keeps whole.
HYPHEN_PREFIXES = frozenset({
    "e", "a", "u", "x", "agro", "ante", "anti", "arch", "be", "bi", "bio", "co", "counter",
    "cross", "cyber", "de", "eco", "ex", "extra", "inter", "intra", "macro", "mega", "micro",
    "mid", "mini", "multi", "neo", "non", "over", "pan", "para", "peri", "post", "pre", "pro",
    "pseudo", "quasi", "re", "semi", "sub", "super", "tri", "ultra", "un", "uni", "vice",
})
ABBREVIATIONS = frozenset({
    "mr", "mrs", "ms", "dr", "prof", "st", "sr", "jr", "mt", "ft", "lt", "col", "gen", "gov",
    "sen", "rep", "rev", "hon", "capt", "sgt", "vs", "v", "inc", "corp", "co", "ltd", "no",
    "vol", "vols", "p", "pp", "ed", "eds", "fig", "ch", "op", "cf", "ca", "approx", "dept",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
})
_TRANSLATE = {"[": "(", "]": ")", "’": "'", "‘": "'", "‚": "'", "–": "--", "—": "--",
              "―": "--", "…": "..."}

Span = tuple[int, int, str]
WORD_BREAK = "\u200b"


def _atoms(chunk: str, offset: int) -> list[Span]:
    """Split a whitespace-free chunk into words and single punctuation marks."""
    return [(m.start() + offset, m.end() + offset, m.group()) for m in _ATOM.finditer(chunk)]


def _is_word(atom: Span | None) -> bool:
    return atom is not None and (atom[2][0] not in _PUNCT and atom[2][0] != "-")


def _join_initials(text: str, chunks: list[Span]) -> list[Span]:
    """``G. E. Pieter`` -> ``G.E.`` ``Pieter``: initials one space apart make one token."""
    if not _INITIALS_GAP.search(text):  # most runs: nothing to join, no loop over chunks
        return chunks
    out: list[Span] = []
    for chunk in chunks:
        word = chunk[2]
        prev = out[-1] if out and len(word) == 2 and word[1] == "." else None
        if (prev and word[0].isupper() and word[0].isalpha() and _is_initials(prev[2])
                and prev[2][0].isupper() and chunk[0] - prev[1] == 1
                and text[prev[1]] in " \xa0"):
            out[-1] = (prev[0], chunk[1], prev[2] + word)
        else:
            out.append(chunk)
    return out


def final_period_stays(word: str, next_char: str) -> bool:
    """Whether ``word.`` at the end of a chunk keeps its period, given the first character of
    the next chunk ("" at the end of the text): before a digit, or before a letter after an
    initial or an abbreviation."""
    if not next_char:
        return False
    if next_char.isdigit():
        return True
    if next_char.isalpha():
        return (len(word) == 1 and word.isalpha()) or word.lower() in ABBREVIATIONS
    return False


def _is_initials(word: str) -> bool:
    """``G.`` or ``U.S.``: letters, each followed by a period."""
    return (len(word) % 2 == 0 and word[1::2] == "." * (len(word) // 2)
            and word[0::2].isalpha())


class _ChunkSplitter:
    """Splits one whitespace-free chunk; ``next_char`` is the first character of the next
    chunk in the run ("" at the end of the run), for the final-period decision."""

    def __init__(self, chunk: Span, next_char: str, quotes: list[str],
                 glued: bool = False) -> None:
        self.atoms = _atoms(chunk[2], chunk[0])
        self.text = chunk[2]
        self.base = chunk[0]
        self.next_char = next_char
        self.quotes = quotes
        self.glued = glued  # directly after a URL: a quote at i == 0 closes
        self.out: list[Span] = []

    def split(self) -> list[Span]:
        i = 0
        while i < len(self.atoms):
            i = self._word(i) if _is_word(self.atoms[i]) else self._punct(i)
        return self.out

    def _at(self, i: int) -> Span | None:
        return self.atoms[i] if 0 <= i < len(self.atoms) else None

    def _text(self, i: int) -> str:
        atom = self._at(i)
        return atom[2] if atom else ""

    def _emit(self, start: int, end: int, text: str) -> None:
        self.out.append((start, end, text))

    def _match_at(self, pattern: re.Pattern[str], i: int) -> int | None:
        """Index of the atom after a ``pattern`` match starting at atom ``i``, if it ends on
        an atom boundary."""
        m = pattern.match(self.text, self.atoms[i][0] - self.base)
        if not m:
            return None
        end = m.end() + self.base
        for j in range(i, len(self.atoms)):
            if self.atoms[j][1] == end:
                return j + 1
        return None

    def _word(self, i: int) -> int:
        start = self.atoms[i][0]
        j = self._acronym(i)
        if j is not None:
            self._emit(start, self.atoms[j - 1][1], self._slice(start, self.atoms[j - 1][1]))
            return j
        j = self._match_at(_DOMAIN, i) or self._match_at(_NUMBER, i) or self._compound(i)
        return self._finish_word(start, self._slice(start, self.atoms[j - 1][1]), j)

    def _slice(self, start: int, end: int) -> str:
        return self.text[start - self.base:end - self.base]

    def _acronym(self, i: int) -> int | None:
        j = i
        while (len(self._text(j)) == 1 and _is_word(self._at(j)) and self._text(j + 1) == "."
               and self._text(j)[0].isalpha()):
            j += 2
        return j if j - i >= 4 else None

    def _compound(self, i: int) -> int:
        """Extend a word over ``&``, inner apostrophes and prefix hyphens (``non-profit``)."""
        j = i + 1
        while _is_word(self._at(j + 1)):
            sep, nxt = self._text(j), self._text(j + 1)
            if sep == "&":
                j += 2
            elif sep in APOSTROPHES and not self._is_clitic(j):
                j += 2
            elif sep == "-" and self._text(i).lower() in HYPHEN_PREFIXES and nxt[0].isalnum():
                j += 2
            else:
                break
        return j

    def _is_clitic(self, j: int) -> bool:
        nxt = self._text(j + 1).lower()
        if _is_word(self._at(j + 2)) or self._text(j + 2) in APOSTROPHES:
            return False
        return nxt in CLITICS or (nxt == "t" and self._text(j - 1)[-1:].lower() == "n")

    def _finish_word(self, start: int, word: str, j: int) -> int:
        """Emit ``word`` (atoms up to j), splitting ``n't`` and clitics, and a final period."""
        end = start + len(word)
        if self._text(j) in APOSTROPHES and self._is_clitic(j) and self._text(j + 1).lower() == "t":
            if len(word) > 1:
                self._emit(start, end - 1, word[:-1])
            self._emit(end - 1, self.atoms[j + 1][1], word[-1] + "'" + self._text(j + 1))
            return j + 2
        if self._text(j) in APOSTROPHES and self._is_clitic(j):
            self._emit(start, end, word)
            self._emit(self.atoms[j][0], self.atoms[j + 1][1], "'" + self._text(j + 1))
            return j + 2
        if self._text(j) == "." and self._keeps_period(word, j):
            self._emit(start, self.atoms[j][1], word + ".")
            return j + 1
        self._emit(start, end, word)
        return j

    def _keeps_period(self, word: str, j: int) -> bool:
        after = self._at(j + 1)
        if after is not None:
            return _is_word(after) or after[2] in ",;:"
        return final_period_stays(word, self.next_char)

    def _punct(self, i: int) -> int:
        start, end, text = self.atoms[i]
        amount = self._match_at(_NUMBER, i) if text in "$€£¥" else None
        if amount is not None:
            return self._finish_word(start, self._slice(start, self.atoms[amount - 1][1]),
                                     amount)
        if text in DQUOTES:
            self._emit(start, end, self._quote(i))
        elif text.startswith(".."):
            self._emit(start, end, "...")
        elif text.startswith("--"):
            self._emit(start, end, "--")
        elif text in APOSTROPHES and self._is_clitic(i) and i > 0:
            self._emit(start, self.atoms[i + 1][1], "'" + self._text(i + 1))
            return i + 2
        else:
            self._emit(start, end, _TRANSLATE.get(text, text))
        return i + 1

    def _quote(self, i: int) -> str:
        text = self._text(i)
        if text in "“„":
            kind = "``"
        elif text == "”":
            kind = "''"
        elif i == 0 and self.glued:
            kind = "''"
        elif i == 0 and len(self.atoms) > 1:
            kind = "``"
        elif i > 0:
            kind = "``" if self._text(i - 1) in OPENERS else "''"
        else:
            kind = "''" if self.quotes and self.quotes[-1] == "``" else "``"
        self.quotes.append(kind)
        return kind


def _simple_chunk(chunk: Span, next_char: str, out: list[Span]) -> bool:
    """Fast path for a plain word followed by one of ``,;:!?)%.``; False if not that."""
    start, end, text = chunk
    last = text[-1]
    if last not in ",;:!?)%." or len(text) < 2 or not _PLAIN.match(text, 0, len(text) - 1):
        return False
    word = text[:-1]
    if last == "." and final_period_stays(word, next_char):
        out.append(chunk)
    else:
        out.append((start, end - 1, word))
        out.append((end - 1, end, last))
    return True


def _split_urls(chunk: Span) -> list[tuple[Span, bool]]:
    """Cut URLs (kept whole, trailing punctuation excluded) out of a chunk."""
    start, _, text = chunk
    m = _URL.search(text)
    if m is None:
        return [(chunk, False)]
    url_end = m.end()
    while url_end > m.start() + 1 and text[url_end - 1] in _URL_TRAIL:
        url_end -= 1
    parts: list[tuple[Span, bool]] = []
    if m.start():
        parts.append(((start, start + m.start(), text[:m.start()]), False))
    parts.append(((start + m.start(), start + url_end, text[m.start():url_end]), True))
    if url_end < len(text):
        parts.extend(_split_urls((start + url_end, start + len(text), text[url_end:])))
    return parts


def tokenize_text(text: str) -> list[Span]:
    """PTB-like words of a run of plain text, as (start, end, token) character spans."""
    chunks = _join_initials(text, [(*m.span(), m.group()) for m in _CHUNK.finditer(text)])
    out: list[Span] = []
    quotes: list[str] = []
    for k, chunk in enumerate(chunks):
        word = chunk[2]
        if _PLAIN.match(word) or (_is_initials(word) and len(word) > 2):
            out.append(chunk)
            continue
        if len(word) == 1 and word not in DQUOTES:  # a lone mark: ``^``, ``/``, ``–``
            out.append((chunk[0], chunk[1], _TRANSLATE.get(word, word)))
            continue
        next_char = chunks[k + 1][2][0] if k + 1 < len(chunks) else ""
        if _simple_chunk(chunk, next_char, out):
            continue
        for part, is_url in _split_urls(chunk):
            if is_url:
                out.append(part)
            else:
                nxt = next_char if part[1] == chunk[1] else text[part[1]]
                glued = part[0] > chunk[0]
                out.extend(_ChunkSplitter(part, nxt, quotes, glued).split())
    return out
