"""Plain network clients, built by the Beam stages in ``DoFn.setup()``.

What lives here: the Wayback Machine client (:mod:`.wayback`: CDX listing and raw ``id_``
fetching), the polite HTTP base (:mod:`.http_json`, :mod:`.retry_policy`, :mod:`.rate_limit`:
User-Agent, rate limit, retries and backoff) with its on-disk cache (:mod:`.cache_store`),
Wikipedia search and pages (:mod:`.search_backends`, :mod:`.wikipedia_pages`) and the offline
BM25 index (:mod:`.local_search`). Their settings are frozen, picklable policies that own
their defaults once: :class:`.bounded_http.RequestLimits`, :class:`.http_json.HttpPolicy`,
:class:`.wayback.WaybackPolicy` and :class:`.search_backends.SearchEndpoints`.

Layering (checked by import-linter): modules here import only :mod:`filters` and third-party
libraries. They import no Apache Beam at all, not even lazily inside a function, and
nothing else from :mod:`transforms`. Anything Beam-specific is injected by the caller, e.g. the
object storage of a remote cache (:class:`transforms.core.beam_storage.BeamFileSystemStorage`).
"""
