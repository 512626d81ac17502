"""A token as a Hub's error text may spell it, and a check that none of it can be read back
from what publish printed (issue 35, A2); shared by the redaction and publish tests."""

from __future__ import annotations

import base64
import html
import json
import urllib.parse

REAL = "hf_" + "Zq9" * 11 + "x"  # 37 characters, as the token
HALF = len(REAL) // 2
FRAGMENT = 8  # the issue: no run of 8 characters of the token may be printed


def spellings(token: str) -> dict[str, str]:
    """The token as a Hub's error text may spell it (issue 35, A2)."""
    return {
        "literal": token,
        "cut by a newline": f"{token[:HALF]}\n{token[HALF:]}",
        "cut by an escaped newline and blanks": f"{token[:HALF]}\\n    {token[HALF:]}",
        "cut by a zero-width space": f"{token[:HALF]}\u200b{token[HALF:]}",
        "underscore percent-encoded": token.replace("_", "%5F"),
        "every character percent-encoded, lower case": "".join(f"%{ord(c):02x}"
                                                                for c in token),
        "some characters percent-encoded twice": token.replace("Z", "%255A"),
        "JSON-escaped": "".join(f"\\u{ord(c):04x}" for c in token),
        "JSON-escaped underscore": json.dumps(token).replace("_", "\\u005f"),
        "HTML character references": "".join(f"&#{ord(c)};" for c in token),
        "base64 of user:token": base64.b64encode(f"user:{token}".encode()).decode(),
        "base64 of u:token, URL-safe": base64.urlsafe_b64encode(f"u:{token}".encode()).decode(),
        "halves apart": f"{token[:HALF]} and later {token[HALF:]}",
    }


def recoverable(text: str, token: str) -> str | None:
    """The token, or 8 of its characters in a row, read back from ``text`` however spelled."""
    flat = "".join(html.unescape(urllib.parse.unquote(urllib.parse.unquote(text))).split())
    flat = flat.replace("\\n", "").encode().decode("unicode_escape", "ignore")
    words = flat.replace("(", " ").replace(")", " ").split()
    decoded = [_unbase64(w) for w in words if len(w) > 20 and w.isascii()]
    for candidate in [flat, text, *decoded]:
        for start in range(len(token) - FRAGMENT + 1):
            if token[start:start + FRAGMENT] in candidate:
                return token[start:start + FRAGMENT]
    return None


def _unbase64(word: str) -> str:
    """``word`` read as base64 (either alphabet), or nothing when it is not."""
    altchars = b"-_" if "-" in word or "_" in word else None
    try:
        return base64.b64decode(word + "=" * (-len(word) % 4), altchars=altchars).decode(
            "latin-1")
    except ValueError:
        return ""
