"""Ranked search hits and NQ's document choice: the top-ranked Wikipedia page in the top 5.

NQ §3.1: "We run questions through the search engine and keep those where there is a
Wikipedia page in the top 5 search results"; the document is the top-ranked such page.
Every search backend (local index, MediaWiki API, web search API) returns ``SearchHit``s.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

TOP_K = 5
_NON_ARTICLE_NAMESPACES = re.compile(
    r"^(Special|Talk|User|User_talk|Wikipedia|Wikipedia_talk|File|File_talk|Template|"
    r"Template_talk|Help|Help_talk|Category|Category_talk|Portal|Draft|Module|MediaWiki|"
    r"TimedText|Book|Education_Program|Gadget|Topic|特別|ノート|利用者|Wikipedia|ファイル|"
    r"Template|ヘルプ|Category|ポータル|プロジェクト):", re.I)


@dataclass(frozen=True)
class SearchHit:
    """One ranked search result (rank is 1-based). ``score``: the backend's relevance score
    (the local index: BM25 over the query's weight, 0 to 1), None when it reports none."""

    url: str
    title: str
    snippet: str
    rank: int
    score: float | None = None


def wikipedia_title(url: str, lang: str = "en") -> str | None:
    """The article title if ``url`` is a ``<lang>.wikipedia.org/wiki/<Title>`` article (mobile
    hosts and ``index.php?title=`` forms included), else None."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host not in (f"{lang}.wikipedia.org", f"{lang}.m.wikipedia.org"):
        return None
    title = ""
    if parts.path.startswith("/wiki/"):
        title = unquote(parts.path[len("/wiki/"):])
    elif parts.path.rstrip("/").endswith("/index.php"):
        match = re.search(r"(?:^|&)title=([^&]+)", parts.query)
        title = unquote(match.group(1)) if match else ""
    title = title.replace(" ", "_")
    if not title or _NON_ARTICLE_NAMESPACES.match(title) or title == "Main_Page":
        return None
    return title


def top_wikipedia_hit(hits: Sequence[SearchHit], lang: str = "en",
                      k: int = TOP_K) -> SearchHit | None:
    """NQ §3.1: the highest-ranked Wikipedia article among the top ``k`` hits, or None."""
    for hit in sorted(hits, key=lambda h: h.rank)[:k]:
        if wikipedia_title(hit.url, lang):
            return hit
    return None
