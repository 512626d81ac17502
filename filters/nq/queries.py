"""Query normalization, aggregation windows and cheap pre-checks for NQ question selection.

NQ §3.1: questions are queries of 8 words or more "issued to the Google search engine by
multiple users in a short period of time". A query's identity is its normalized text (Unicode
NFKC, lower case, single spaces, no trailing "?"/"." and spaces); it is kept when at least
``min_users`` distinct users issued it within ``window_days`` consecutive days.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime

_SPACES = re.compile(r"\s+")
_TRAILING = re.compile(r"[\s?？.。!]+$")
_URLISH = re.compile(r"^(https?://|www\.)|\.(com|org|net|co\.uk)(/|$)", re.I)
_INTEGER = re.compile(r"\s*\+?[0-9]+\s*")
MIN_TOKENS = 8
MAX_QUERY_CHARS = 400
INT64_MAX = 2**63 - 1  # the release's count columns are int64
_ALLOWED_CONTROLS = frozenset("\t\n\r")  # whitespace: normalization turns it into spaces


def normalize_query(text: str) -> str:
    """NFKC, lower case, whitespace collapsed, trailing question marks/periods removed."""
    text = unicodedata.normalize("NFKC", text or "")
    text = _SPACES.sub(" ", text).strip().lower()
    return _TRAILING.sub("", text)


def text_rejection(text: str) -> str | None:
    """Why a raw query text cannot be a question, before aggregation, or None.

    NQ §3.1 takes queries as users typed them; text no user typed must not reach a question
    (or its ``variants``): ``invalid_utf8`` (U+FFFD, bytes already replaced upstream),
    ``invalid_unicode`` (a lone surrogate, e.g. a JSON ``"\\ud800"`` escape: not encodable),
    ``control_characters`` (C0/C1 controls other than tab, CR, LF: a broken client or log
    writer; rejected rather than stripped, so two different raw strings never merge into one
    question and the question is exactly what a user typed, after NFKC)."""
    for char in text:
        if char == "\ufffd":
            return "invalid_utf8"
        category = unicodedata.category(char)
        if category == "Cs":
            return "invalid_unicode"
        if category == "Cc" and char not in _ALLOWED_CONTROLS:
            return "control_characters"
    return None


def parse_count(value: object) -> int:
    """A log's event or user count as a non-negative int64; ValueError otherwise (booleans,
    fractions, negative numbers, text that is not a decimal integer, 2**63 or more)."""
    if isinstance(value, bool):
        raise ValueError(f"not a count: {value!r}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _INTEGER.fullmatch(value):
        number = int(value)
    else:
        raise ValueError(f"not a count: {str(value)[:100]!r}")
    if not 0 <= number <= INT64_MAX:
        raise ValueError(f"count out of range [0, 2**63 - 1]: {number}")
    return number


def cheap_rejection(normalized: str, max_chars: int = MAX_QUERY_CHARS) -> str | None:
    """Reasons decidable without spaCy: ``empty_query``, ``too_few_words`` (fewer than 4
    whitespace words can never make 8 tokens in a real query), ``too_long``, ``url_query``."""
    if not normalized:
        return "empty_query"
    if len(normalized) > max_chars:
        return "too_long"
    if _URLISH.search(normalized):
        return "url_query"
    if len(normalized.split()) < MIN_TOKENS // 2:
        return "too_few_words"
    return None


def parse_timestamp(value: object) -> datetime:
    """ISO 8601 text, epoch seconds or a datetime -> aware UTC datetime; ValueError otherwise."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, (int, float)) or (isinstance(value, str) and value.strip().isdigit()):
        moment = datetime.fromtimestamp(int(value), tz=UTC)
    elif isinstance(value, str) and value.strip():
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    else:
        raise ValueError(f"not a timestamp: {value!r}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def max_users_in_window(user_days: Mapping[str, Iterable[date]], window_days: int) -> int:
    """Largest number of distinct users whose events fall within ``window_days`` consecutive
    days (two-pointer sweep over (day, user) events; exact at day granularity)."""
    events = sorted((d, u) for u, days in user_days.items() for d in set(days))
    best, left = 0, 0
    counts: dict[str, int] = {}
    for day, user in events:
        counts[user] = counts.get(user, 0) + 1
        while (day - events[left][0]).days >= window_days:
            old = events[left][1]
            counts[old] -= 1
            if not counts[old]:
                del counts[old]
            left += 1
        best = max(best, len(counts))
    return best
