"""Unicode TR39 skeletons: one string for text that looks the same.

``skeleton`` is the skeleton of Unicode Technical Standard #39, section 4: the text in NFD,
its default-ignorable code points removed (format characters such as U+200B ZERO WIDTH
SPACE, U+00AD SOFT HYPHEN, U+2060 WORD JOINER, U+FEFF, and the variation selectors and
Hangul fillers), every character replaced by its prototype from Unicode's
``confusables.txt`` (Cyrillic "а" and Greek "ο" become Latin "a" and "o"), and NFD again.
Two strings are confusable when their skeletons are equal. A skeleton is a key for
matching, never text to show: it turns "m" into "rn", "1" into "l" and "0" into "O".

``confusables.txt`` is vendored unchanged beside this module (Unicode's data file, under
the Unicode License; the version is in its header and from ``confusables_version()``),
read on first use. To
update it, replace the file with a newer one from Unicode's ``Public/security`` directory:
it is parsed as it is, so no generated table has to follow.
"""

from __future__ import annotations

import functools
import unicodedata
from pathlib import Path

DATA = Path(__file__).with_name("confusables.txt")
_MAX_DATA_BYTES = 4 << 20

# Default_Ignorable_Code_Point outside category Cf (DerivedCoreProperties.txt): combining
# grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian free variation
# selectors, variation selectors, the rest of the U+2060 and tag blocks, U+FFF0..U+FFF8.
_IGNORABLE_RANGES = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x2060, 0x206F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
                     (0xE0000, 0xE0FFF))


def is_ignorable(char: str) -> bool:
    """A format character (category Cf) or another default-ignorable code point: one that
    is invisible on its own."""
    code = ord(char)
    return unicodedata.category(char) == "Cf" or any(
        low <= code <= high for low, high in _IGNORABLE_RANGES)


class _Ignorable(dict):
    """A ``str.translate`` table, filled on demand, that deletes the ignorable."""

    def __missing__(self, code: int) -> int | str | None:
        value: int | str | None = None if is_ignorable(chr(code)) else code
        self[code] = value
        return value


class _Skeleton(_Ignorable):
    """The confusables' prototypes; ignorable code points deleted; anything else kept."""


_STRIP = _Ignorable()


def strip_ignorable(text: str) -> str:
    """``text`` without format characters and other default-ignorable code points."""
    return text.translate(_STRIP)


def _parse(lines: list[str]) -> tuple[str, dict[int, str]]:
    """(version, source code point -> prototype) from the lines of confusables.txt."""
    version = ""
    table: dict[int, str] = {}
    for line in lines:
        line = line.lstrip("\ufeff")
        if line.startswith("# Version:"):
            version = line.split(":", 1)[1].strip()
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        fields = [f.strip() for f in data.split(";")]
        if len(fields) < 2:
            raise ValueError(f"{DATA.name}: not a confusables line: {line!r}")
        source = int(fields[0], 16)
        table[source] = "".join(chr(int(code, 16)) for code in fields[1].split())
    if not table:
        raise ValueError(f"{DATA.name}: no mapping found")
    return version, table


@functools.cache
def _data() -> tuple[str, _Skeleton]:
    with DATA.open("rb") as handle:
        raw = handle.read(_MAX_DATA_BYTES + 1)
    if len(raw) > _MAX_DATA_BYTES:
        raise ValueError(f"{DATA.name}: larger than {_MAX_DATA_BYTES} bytes")
    version, mapping = _parse(raw.decode("utf-8").splitlines())
    table = _Skeleton()
    for source, prototype in mapping.items():
        if not is_ignorable(chr(source)):
            table[source] = prototype
    return version, table


def confusables_version() -> str:
    """The Unicode version of the vendored confusables.txt (its ``# Version:`` line)."""
    return _data()[0]


def skeleton(text: str) -> str:
    """The TR39 skeleton of ``text``: NFD, ignorables removed, prototypes, NFD."""
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", decomposed.translate(_data()[1]))
