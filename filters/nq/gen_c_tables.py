"""The constant tables of the C extensions, rendered from the Python sets they mirror.

``_walker.c`` (the HTML walker of :mod:`filters.nq.tokens`) and ``_ptb.c`` (the word splitter
of :mod:`filters.nq.text_tokens`) look tag names, element ids and classes, words and
characters up in tables. Each table lives in a block of its .c file between
``/* BEGIN GENERATED: <block> ... */`` and ``/* END GENERATED: <block> */``, rendered here
from the Python values, sorted, so the output is byte-stable::

    python -m filters.nq.gen_c_tables --check   # fail when a block differs from the sets
    python -m filters.nq.gen_c_tables --write   # rewrite the blocks, then rebuild:
                                                # python setup.py build_ext --inplace

The built extensions export what they use (``_walker.SKIP_TEXT_IDS``, ``_ptb.ABBREVIATIONS``,
...); :func:`exports` is what each export must equal (tests/filters/nq/test_c_tables.py).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from filters.nq import text_tokens, tokens

PACKAGE_DIR = Path(__file__).resolve().parent
WALKER_C = PACKAGE_DIR / "_walker.c"
PTB_C = PACKAGE_DIR / "_ptb.c"
COMMAND = "python -m filters.nq.gen_c_tables --write"

# Flag bit -> the set of filters/nq/tokens.py it marks, in bit order.
TAG_FLAGS: tuple[tuple[str, str], ...] = (
    ("F_TOKEN", "TOKEN_TAGS"), ("F_CELL", "CELL_TAGS"), ("F_VOID", "VOID_TAGS"),
    ("F_INLINE", "INLINE_TAGS"), ("F_RAW", "RAW_TEXT_TAGS"), ("F_SKIPTAG", "SKIP_TEXT_TAGS"),
    ("F_CLOSES_P", "CLOSES_P"), ("F_HEADTAG", "HEAD_TAGS"), ("F_HEADING", "HEADINGS"),
    ("F_DSCOPE", "_DEFAULT_SCOPE"), ("F_TSCOPE", "_TABLE_SCOPE"),
    ("F_TPART", "_TABLE_PARTS"), ("F_LISTSTOP", "_LIST_ITEM_STOP"),
)
# Tags both walkers name in their code (``name == "li"``, ``_open("body")``): each gets an
# N_<TAG> index in _walker.c even when no set holds it.
CODE_TAGS = frozenset({
    "body", "br", "dd", "dt", "head", "li", "ol", "p", "table", "tbody", "td", "tfoot", "th",
    "thead", "title", "tr", "ul",
})
# C array -> the set of filters/nq/tokens.py it holds (ids and classes of skipped elements).
WALKER_WORDS: tuple[tuple[str, str], ...] = (
    ("SKIP_IDS", "SKIP_TEXT_IDS"), ("KEEP_IDS", "KEEP_TEXT_IDS"),
    ("SKIP_CLASSES", "SKIP_TEXT_CLASSES"),
)
# C array -> the word set of filters/nq/text_tokens.py (compared with str.lower() of a word).
PTB_WORDS: tuple[str, ...] = ("CLITICS", "HYPHEN_PREFIXES", "ABBREVIATIONS")
# C array -> the characters of filters/nq/text_tokens.py it holds.
PTB_CHARS: tuple[tuple[str, str], ...] = (
    ("PUNCT", "_PUNCT"), ("URL_TRAIL", "_URL_TRAIL"), ("DQUOTES", "DQUOTES"),
    ("APOSTROPHES", "APOSTROPHES"), ("CURRENCY", "_NUMBER"),
)
KEY_CAP = 16  # _ptb.c's longest word key, raised when a word set holds a longer word
_TAG_NAME = re.compile(r"[a-z][a-z0-9]*")
_CURRENCY = re.compile(r"\[([^\]\\^-]+)\]\?")  # the [$€£¥]? that _NUMBER starts with


class TableError(ValueError):
    """A Python set holds a value its C table cannot represent."""


def tag_sets() -> dict[str, frozenset[str]]:
    """The tag sets of :mod:`filters.nq.tokens`, by name, in flag-bit order."""
    return {name: getattr(tokens, name) for _, name in TAG_FLAGS}


def known_tags(sets: Mapping[str, Iterable[str]] | None = None) -> tuple[str, ...]:
    """Every tag in a set or named by the walkers' code, sorted: the KNOWN table of _walker.c."""
    sets = tag_sets() if sets is None else sets
    return tuple(sorted(CODE_TAGS.union(*sets.values())))


def walker_words() -> dict[str, frozenset[str]]:
    """The ids and classes of skipped elements, by the name of their set in tokens.py."""
    return {name: getattr(tokens, name) for _, name in WALKER_WORDS}


def ptb_words() -> dict[str, frozenset[str]]:
    """CLITICS, HYPHEN_PREFIXES and ABBREVIATIONS of :mod:`filters.nq.text_tokens`."""
    return {name: getattr(text_tokens, name) for name in PTB_WORDS}


def currency() -> str:
    """The currency signs ``_NUMBER`` of text_tokens.py starts with."""
    m = _CURRENCY.match(text_tokens._NUMBER.pattern)
    if not m:
        raise TableError("_NUMBER no longer starts with [<currency signs>]?: update "
                         "gen_c_tables.currency() and number_match() in _ptb.c")
    return m.group(1)


def ptb_chars() -> dict[str, frozenset[str]]:
    """The character sets of :mod:`filters.nq.text_tokens`, by C array name."""
    out = {}
    for c_name, py_name in PTB_CHARS:
        value = currency() if c_name == "CURRENCY" else getattr(text_tokens, py_name)
        if any(len(ch) != 1 or ch == "\0" for ch in value):
            raise TableError(f"{py_name} must hold single characters other than U+0000")
        out[c_name] = frozenset(value)
    return out


def exports() -> dict[str, dict[str, object]]:
    """What each extension exports, by module and attribute: the Python values it mirrors."""
    walker: dict[str, object] = {"KNOWN_TAGS": known_tags()}
    walker.update((name.lstrip("_"), value) for name, value in tag_sets().items())
    walker.update(walker_words())
    ptb: dict[str, object] = dict(ptb_words())
    ptb.update(ptb_chars())
    ptb["OPENERS"] = text_tokens.OPENERS
    ptb["TRANSLATE"] = tuple(sorted(text_tokens._TRANSLATE.items()))
    return {"filters.nq._walker": walker, "filters.nq._ptb": ptb}


# --- rendering --------------------------------------------------------------------------

def c_string(text: str) -> str:
    """A C string literal of the UTF-8 bytes of ``text`` (octal escapes outside ASCII)."""
    out = []
    for byte in text.encode("utf-8"):
        if byte in b'"\\':
            out.append("\\" + chr(byte))
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _wrapped(items: Iterable[str], indent: str = "    ", width: int = 96) -> list[str]:
    """``items`` joined with ", " on lines of at most ``width`` columns."""
    lines: list[str] = []
    line = ""
    for item in items:
        if line and len(indent) + len(line) + 2 + len(item) + 1 > width:
            lines.append(indent + line + ",")
            line = item
        else:
            line = f"{line}, {item}" if line else item
    if line:
        lines.append(indent + line + ",")
    return lines


def _words_array(c_name: str, words: Iterable[str]) -> list[str]:
    """A NULL-terminated ``const char *`` array of ``words``, sorted."""
    return [f"static const char *const {c_name}[] = {{",
            *_wrapped([*map(c_string, sorted(words)), "NULL"]), "};"]


def _code_points(c_name: str, chars: Iterable[str]) -> list[str]:
    """A sorted ``Py_UCS4`` array and its length N_<c_name>."""
    points = sorted(map(ord, chars))
    return [f"#define N_{c_name} {len(points)}",
            f"static const Py_UCS4 {c_name}[] = {{",
            *_wrapped([f"0x{p:X}" for p in points] or ["0"]), "};"]


def _ascii_words(name: str, words: Iterable[str], lower: bool) -> None:
    for word in words:
        if not word or not word.isascii() or "\0" in word or (lower and word != word.lower()):
            raise TableError(f"{name} holds {word!r}: the C tables take non-empty ASCII "
                             + ("lower-case words" if lower else "strings"))


def render_tags(sets: Mapping[str, frozenset[str]]) -> str:
    """The flag bits, the N_<TAG> indices and the KNOWN table of _walker.c."""
    names = known_tags(sets)
    for name in names:
        if not _TAG_NAME.fullmatch(name):
            raise TableError(f"tag {name!r}: _walker.c takes lower-case [a-z][a-z0-9]* names")
    for name in sets["TOKEN_TAGS"]:
        if len(name) > 15:
            raise TableError(f"token tag {name!r}: _walker.c spells at most 15 letters")
    lines = ["/* The tag sets of filters/nq/tokens.py as flag bits; KNOWN: every tag in one of",
             " * them or named by the walker's code, sorted, N_<TAG> its index. */"]
    for bit, (flag, set_name) in enumerate(TAG_FLAGS):
        lines.append(f"#define {flag} (1u << {bit})  /* {set_name} */")
    lines += [f"#define N_FLAGS {len(TAG_FLAGS)}",
              "static const char *const FLAG_SETS[N_FLAGS] = {",
              *_wrapped(c_string(name.lstrip("_")) for _, name in TAG_FLAGS), "};",
              "enum {", *(f"    N_{name.upper()}," for name in names), "    N_KNOWN", "};",
              "static const struct { const char *name; unsigned flags; } KNOWN[N_KNOWN] = {"]
    for name in names:
        flags = " | ".join(flag for flag, set_name in TAG_FLAGS if name in sets[set_name])
        lines.append(f"    {{{c_string(name)}, {flags or '0'}}},")
    lines.append("};")
    return "\n".join(lines)


def render_skip_text(words: Mapping[str, frozenset[str]]) -> str:
    """SKIP_IDS, KEEP_IDS and SKIP_CLASSES of _walker.c, and their export names."""
    lines = ["/* The ids and classes of filters/nq/tokens.py whose elements skip (or keep) text;",
             " * WORD_TABLES: their export names. */"]
    for c_name, set_name in WALKER_WORDS:
        _ascii_words(set_name, words[set_name], lower=False)
        lines += _words_array(c_name, words[set_name])
    lines.append("static const struct { const char *name; const char *const *words; } "
                 "WORD_TABLES[] = {")
    lines += [f"    {{{c_string(set_name)}, {c_name}}},"
              for c_name, set_name in sorted(WALKER_WORDS, key=lambda item: item[1])]
    lines += ["    {NULL, NULL},", "};"]
    return "\n".join(lines)


def render_ptb_words(words: Mapping[str, frozenset[str]]) -> str:
    """CLITICS, HYPHEN_PREFIXES and ABBREVIATIONS of _ptb.c, KEY_CAP and WORD_TABLES."""
    longest = KEY_CAP
    lines = ["/* The word sets of filters/nq/text_tokens.py (lower-case ASCII; a word is looked",
             " * up by its str.lower(), of at most KEY_CAP characters); WORD_TABLES: their export",
             " * names. */"]
    for name in PTB_WORDS:
        _ascii_words(name, words[name], lower=True)
        longest = max(longest, *map(len, words[name] or [""]))
        lines += _words_array(name, words[name])
    lines.insert(3, f"#define KEY_CAP {longest}")
    lines.append("static const struct { const char *name; const char *const *words; } "
                 "WORD_TABLES[] = {")
    lines += [f"    {{{c_string(name)}, {name}}}," for name in sorted(PTB_WORDS)]
    lines += ["    {NULL, NULL},", "};"]
    return "\n".join(lines)


def render_ptb_chars(chars: Mapping[str, frozenset[str]], openers: Iterable[str],
                     translate: Mapping[str, str]) -> str:
    """The character sets, OPENERS and TRANSLATE of _ptb.c, and CHAR_TABLES."""
    lines = ["/* The characters of filters/nq/text_tokens.py, sorted (CURRENCY: the signs _NUMBER",
             " * starts with); OPENERS as zero-terminated code points; TRANSLATE: _TRANSLATE. */"]
    for c_name, _ in PTB_CHARS:
        lines += _code_points(c_name, chars[c_name])
    lines.append("static const struct { const char *name; const Py_UCS4 *set; Py_ssize_t n; } "
                 "CHAR_TABLES[] = {")
    lines += [f"    {{{c_string(c_name)}, {c_name}, N_{c_name}}},"
              for c_name in sorted(name for name, _ in PTB_CHARS)]
    lines += ["    {NULL, NULL, 0},", "};"]
    openers = sorted(openers, key=lambda text: (len(text), text))
    if not openers or any(not text or "\0" in text for text in openers):
        raise TableError("OPENERS must hold non-empty strings without U+0000")
    cap = max(map(len, openers)) + 1
    lines += [f"#define N_OPENERS {len(openers)}", f"#define OPENER_CAP {cap}",
              "static const Py_UCS4 OPENERS[N_OPENERS][OPENER_CAP] = {",
              *_wrapped("{" + ", ".join(f"0x{ord(ch):X}" for ch in text) + "}"
                        for text in openers), "};"]
    if any(len(key) != 1 or key == "\0" for key in translate):
        raise TableError("_TRANSLATE must map single characters other than U+0000")
    pairs = sorted(translate.items())
    lines += [f"#define N_TRANSLATE {len(pairs)}",
              "static const struct { Py_UCS4 ch; const char *to; } TRANSLATE[] = {",
              *_wrapped([f"{{0x{ord(key):X}, {c_string(value)}}}" for key, value in pairs]
                        or ["{0, NULL}"]), "};"]
    return "\n".join(lines)


def blocks() -> dict[Path, dict[str, str]]:
    """The rendered blocks of each .c file, by block name."""
    return {
        WALKER_C: {"tags": render_tags(tag_sets()), "skip_text": render_skip_text(walker_words())},
        PTB_C: {"chars": render_ptb_chars(ptb_chars(), text_tokens.OPENERS,
                                          text_tokens._TRANSLATE),
                "words": render_ptb_words(ptb_words())},
    }


def _block_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"^/\* BEGIN GENERATED: " + re.escape(name) + r" [^\n]*\*/\n"
                      r".*?^/\* END GENERATED: " + re.escape(name) + r" \*/$", re.M | re.S)


def updated(source: str, rendered: Mapping[str, str]) -> str:
    """``source`` with each generated block replaced by its rendering."""
    for name, body in rendered.items():
        found = list(_block_pattern(name).finditer(source))
        if len(found) != 1:
            raise TableError(f"need exactly one generated block {name!r}, found {len(found)}")
        block = (f"/* BEGIN GENERATED: {name} ({COMMAND}) */\n{body}\n"
                 f"/* END GENERATED: {name} */")
        source = source[:found[0].start()] + block + source[found[0].end():]
    return source


def stale() -> list[Path]:
    """The .c files whose generated blocks differ from the Python sets."""
    return [path for path, rendered in blocks().items()
            if updated(path.read_text(encoding="utf-8"), rendered)
            != path.read_text(encoding="utf-8")]


def write_all() -> list[Path]:
    """Rewrite the generated blocks; the files that changed."""
    changed = []
    for path, rendered in blocks().items():
        source = path.read_text(encoding="utf-8")
        new = updated(source, rendered)
        if new != source:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    """``--write`` the blocks or ``--check`` them (the default); 1 when stale."""
    parser = argparse.ArgumentParser(prog="python -m filters.nq.gen_c_tables")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the generated blocks")
    mode.add_argument("--check", action="store_true", help="fail when a block is stale")
    args = parser.parse_args(argv)
    if args.write:
        for path in write_all():
            print(f"wrote {path.name}: rebuild with python setup.py build_ext --inplace")
    outdated = stale()
    if outdated:
        print(f"stale C tables in {', '.join(path.name for path in outdated)} "
              f"(run {COMMAND})", file=sys.stderr)
        return 1
    print("C tables up to date with the Python sets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
