"""Read the surface forms and features of every entry of a compiled MeCab dictionary
(``sys.dic``), such as unidic-lite's. Used to derive and check the surface forms of the words
the JNQ §3.1 patterns look for (``filters.jnq.prechecks``: the string checks that run before
tagging must know every spelling the analyzer can return for those words).

The layout is MeCab's (``dictionary.cpp``): a 40-byte header of ten uint32 (magic, version,
type, lexsize, lsize, rsize, dsize, tsize, fsize, dummy), a 32-byte charset, the Darts double
array (``dsize`` bytes of int32 base / uint32 check pairs), ``tsize`` bytes of 16-byte tokens
(lcAttr, rcAttr, posid, wcost, feature offset, compound) and ``fsize`` bytes of NUL-terminated
feature strings. A key's value is ``-base - 1`` at its terminal unit: token index << 8 | count.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

_HEADER = struct.Struct("<10I")
_TOKEN = struct.Struct("<HHHhII")


def dictionary_entries(path: str | Path) -> Iterator[tuple[str, int, int, int, str]]:
    """Every ``(surface, left id, right id, word cost, feature CSV)`` of a compiled MeCab
    ``sys.dic``, surfaces decoded from the double array by walking each terminal unit back to
    the root."""
    import numpy as np

    data = Path(path).read_bytes()
    (_magic, _version, _type, _lexsize, _l, _r, dsize, tsize, fsize,
     _dummy) = _HEADER.unpack_from(data, 0)
    offset = _HEADER.size + 32
    units = np.frombuffer(data, dtype="<i4", count=dsize // 4, offset=offset).reshape(-1, 2)
    base, check = units[:, 0], units[:, 1]
    tokens = data[offset + dsize:offset + dsize + tsize]
    features = data[offset + dsize + tsize:offset + dsize + tsize + fsize]
    root = int(base[0])
    inner = np.nonzero(base > 0)[0]
    unit_of_base = dict(zip(base[inner].tolist(), inner.tolist(), strict=True))
    terminals = np.nonzero((check == np.arange(len(check))) & (base < 0))[0]
    for p in terminals.tolist():
        key = bytearray()
        b = p
        while b != root:
            q = unit_of_base[b]
            parent = int(check[q])
            key.append(q - parent - 1)
            b = parent
        surface = bytes(reversed(key)).decode("utf-8")
        value = -int(base[p]) - 1
        first, count = value >> 8, value & 0xFF
        for k in range(first, first + count):
            left, right, _posid, cost, feature_offset, _compound = _TOKEN.unpack_from(
                tokens, k * _TOKEN.size)
            end = features.index(b"\0", feature_offset)
            yield surface, left, right, cost, features[feature_offset:end].decode("utf-8")


def unidic_lite_sys_dic() -> Path:
    """The ``sys.dic`` of the installed unidic-lite."""
    import unidic_lite

    return Path(unidic_lite.DICDIR) / "sys.dic"
