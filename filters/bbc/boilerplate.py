"""Recognize BBC page templates that are not article text.

Two complementary rules (NLQuAD §3: "the template ... is removed from the document"):

* ``is_template_text``: known BBC call-to-action and footer templates ("Do you have ...? Share
  your experiences", "Follow X on Twitter", "Listen to Newsbeat live", the have-your-say form
  notice). These end in "?" often enough to pass for questions, so they must never become one.
* ``paragraph_fingerprint``: a stable fingerprint of a normalized paragraph, used by the
  pipeline to find paragraphs repeated across many distinct articles (corpus-level boilerplate
  the pattern list does not know yet).
"""

from __future__ import annotations

import hashlib
import re

_TEMPLATE_PATTERNS = [
    r"share your (experiences?|views?|stor(y|ies)|pictures?|photos?|thoughts)",
    r"haveyoursay@bbc",
    r"\bget in touch\b",
    r"please include a contact number",
    r"willing to speak to a bbc journalist",
    r"^follow [\w .'&-]{1,60} on (twitter|facebook|instagram|snapchat|youtube)",
    r"^listen to newsbeat live",
    r"if you are reading this page and can'?t see the form",
    r"^(read|find out) more about (this|these|our)",
    r"terms (&|and) conditions and privacy policy",
    r"^have you been affected by",
    r"^do you have (a|any) (question|questions|story|information|experience)",
]
_TEMPLATE = re.compile("|".join(f"(?:{p})" for p in _TEMPLATE_PATTERNS), re.I)
_NORMALIZE = re.compile(r"[^\w]+")


def is_template_text(text: str) -> bool:
    """True when ``text`` is a known BBC call-to-action or footer template."""
    return bool(_TEMPLATE.search(text.strip().replace("\u2019", "'")))


def normalize_for_fingerprint(text: str) -> str:
    """Lower-case, keep word characters only, single spaces."""
    return _NORMALIZE.sub(" ", text.lower()).strip()


def paragraph_fingerprint(text: str) -> str:
    """Stable 16-hex-digit fingerprint of a paragraph's normalized text."""
    return hashlib.sha1(normalize_for_fingerprint(text).encode("utf-8")).hexdigest()[:16]


def document_fingerprint(paragraphs: list[str]) -> str:
    """Fingerprint of a whole body text: the same text under two URLs shares it."""
    joined = " ".join(normalize_for_fingerprint(p) for p in paragraphs)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()
