"""Choose one capture per article and one article per text (NLQuAD §3: duplicates removed).

* Captures of one article (same asset key after URL normalization) -> the capture nearest to
  publication wins: it shows the article as published, before later edits, corrections and
  layout re-renders. AMP captures lose to regular ones (different, thinner markup); captures
  before the publication time (clock skew) rank after those at or after it. Ties: earliest
  timestamp, then URL.
* Articles with identical normalized body text under different asset keys -> the earliest
  published wins (the original; later ones are republications); ties by canonical URL.
"""

from __future__ import annotations

from datetime import UTC, datetime


def _capture_time(timestamp: str) -> datetime | None:
    try:
        return datetime.strptime(timestamp[:14].ljust(14, "0"), "%Y%m%d%H%M%S").replace(
            tzinfo=UTC)
    except ValueError:
        return None


def _published_time(published: str) -> datetime | None:
    try:
        return datetime.strptime(published, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def capture_preference(published: str, timestamp: str, is_amp: bool,
                       url: str) -> tuple[int, int, float, str, str]:
    """Sort key: the smallest key is the capture to keep (see module docstring)."""
    captured, pub = _capture_time(timestamp), _published_time(published)
    if captured is None:
        return (int(is_amp), 2, 0.0, timestamp, url)
    if pub is None:
        return (int(is_amp), 0, 0.0, timestamp, url)
    delta = (captured - pub).total_seconds()
    return (int(is_amp), 0 if delta >= 0 else 1, abs(delta), timestamp, url)


def content_preference(published: str, canonical_url: str) -> tuple[str, str]:
    """Sort key among articles with the same text: earliest publication, then URL."""
    return (published or "9999", canonical_url)
