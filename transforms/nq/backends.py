"""Picklable factories of search backends and page fetchers, called in ``DoFn.setup()``.

``--search``: ``local`` (BM25 index directory), ``mediawiki`` (Wikipedia search API) or
``web`` (a web search JSON API). ``--pages``: ``local`` (the page HTML stored in the index
directory) or ``rest`` (the Wikimedia REST API, revision recorded). The network clients
follow ``http`` (an ``HttpPolicy``: rate, cache, request limits); a remote HTTP cache
(``http.cache_dir`` such as ``gs://...``) is stored through Beam's filesystems.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from apache_beam.utils.shared import Shared

from filters.nq.relevance_floor import RelevanceFloor
from transforms.clients.http_json import HttpPolicy
from transforms.clients.search_backends import SearchEndpoints
from transforms.core.beam_storage import beam_storage_for

if TYPE_CHECKING:
    from transforms.clients.search_backends import SearchBackend
    from transforms.clients.wikipedia_pages import WikiPage, WikipediaPageFetcher


@dataclass(frozen=True)
class BackendOptions:
    """Everything a worker needs to build its clients (frozen values: picklable)."""

    search: str = "local"
    pages: str = "local"
    lang: str = "en"
    index_dir: str = ""
    http: HttpPolicy = HttpPolicy()
    search_options: SearchEndpoints = SearchEndpoints()
    rest_url: str | None = None
    shared: Shared = field(default_factory=Shared, compare=False, repr=False)
    failure_limit: int = 0  # stop after this many items in a row lost to connection failures
    floor: RelevanceFloor = RelevanceFloor()  # the linked page's lowest score and margin

    @property
    def search_what(self) -> str:
        """The search endpoint as error messages name it."""
        return f"the search backend {self.search}"

    @property
    def pages_what(self) -> str:
        """The page source as error messages name it."""
        return "the Wikimedia REST API (pages)" if self.pages == "rest" else "the local pages"

    def make_search(self) -> SearchBackend:
        """The search backend named by ``search``. The local index is opened once per worker
        process and shared by its threads (Beam's ``Shared``); a remote one is first copied
        to the machine's disk (``transforms.sources.index_copy``)."""
        if self.search == "local":
            from transforms.clients.local_search import LocalSearch
            from transforms.sources.index_copy import local_index

            index_dir = self.index_dir
            return SharedSearch(self.shared.acquire(
                lambda: LocalSearch(local_index(index_dir)), tag=index_dir))
        from transforms.clients.search_backends import search_backend_from_options

        return search_backend_from_options(self.search, self.lang, **self._http_options(),
                                           **self.search_options.for_backend(self.search))

    def make_fetcher(self) -> WikipediaPageFetcher | LocalPageFetcher:
        """The page fetcher named by ``pages``."""
        if self.pages == "local":
            from transforms.sources.index_copy import local_index

            return LocalPageFetcher(local_index(self.index_dir), self.lang)
        from transforms.clients.wikipedia_pages import WikipediaPageFetcher

        return WikipediaPageFetcher(lang=self.lang, rest_url=self.rest_url,
                                    **self._http_options())

    def _http_options(self) -> dict[str, Any]:
        """``http`` as the clients' ``policy``, plus Beam's filesystems as ``cache_storage``
        when the cache is remote. Built on the worker: the storage is not pickled."""
        storage = beam_storage_for(self.http.cache_dir)
        return {"policy": self.http, **({"cache_storage": storage} if storage else {})}


class SharedSearch:
    """A borrowed shared backend: searches through it, and leaves it open on ``close()`` for
    the other threads of the process (it is released when no DoFn holds it)."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend

    def search(self, query: str, k: int = 5) -> list:
        return self.backend.search(query, k)

    def close(self) -> None:
        self.backend = None


class LocalPageFetcher:
    """Pages stored in a local index directory, as ``WikiPage`` with a pinned URL. Reads the
    page store only (memory-mapped offsets and titles), not the BM25 index."""

    def __init__(self, index_dir: str, lang: str) -> None:
        from transforms.clients.local_search import open_page_store

        self._index = open_page_store(index_dir)
        self.lang = lang

    def fetch(self, title: str) -> WikiPage:
        from transforms.clients.wikipedia_pages import WikiPage, nq_document_url
        from transforms.nq.linking import PageDrop

        page = self._index.page(title)
        if page is None:
            raise PageDrop("page_missing")
        return WikiPage(title=title, lang=self.lang, revision=page.revision, html=page.html,
                        url=nq_document_url(self.lang, title, page.revision))

    def close(self) -> None:
        self._index.close()
