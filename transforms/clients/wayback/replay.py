"""What a replay answer holds: :class:`FetchResult` and :func:`judge_replay`, which decides
whether a payload is the capture that was listed.

The archive answers an ``id_`` request with the capture asked for, with another capture of
the page (it redirects to the nearest one it can replay, seconds or weeks away), or with a
page of its own (an exclusion notice). Memento headers (:mod:`.memento`) tell them apart:
a memento at the listed time is checked against the CDX digest; a memento at another time
is ``capture_redirected`` or, when the policy accepts it, kept with its own timestamp; an
answer without Memento headers is the archive's own page (``excluded``) unless its payload
matches the CDX digest. A digest mismatch is retried once; the same wrong payload twice is
final. Nothing here touches the network.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from transforms.clients.wayback.cdx import CdxCapture
from transforms.clients.wayback.digest import digest_like, normalise_digest
from transforms.clients.wayback.errors import (
    CAPTURE_REDIRECTED,
    DIGEST_MISMATCH,
    EXCLUDED,
    WaybackError,
    excerpt,
)
from transforms.clients.wayback.memento import Memento


@dataclass
class FetchResult:
    """A fetched capture.

    ``url`` is the capture's original URL; ``timestamp`` is the capture the archive served
    (its ``Memento-Datetime``), which is the listed one (``requested_timestamp``) unless a
    redirected capture was accepted; ``content`` is the payload with any HTTP
    Content-Encoding removed; ``headers`` are the response headers as received;
    ``attempts`` is the number of HTTP attempts made by this call (0 when served from the
    cache); ``digest_ok`` is True when the CDX digest matched, False when it did not
    (``verify_digest="warn"``) and None when it was not checked (no digest, checks off, or
    another capture than the listed one, which that digest does not describe).
    """

    url: str
    timestamp: str
    status: int
    content: bytes
    headers: dict[str, str]
    from_cache: bool
    attempts: int
    digest_ok: bool | None = None
    requested_timestamp: str = ""

    def __post_init__(self) -> None:
        if not self.requested_timestamp:
            self.requested_timestamp = self.timestamp

    @property
    def redirected(self) -> bool:
        """Whether this is another capture than the one listed (an accepted redirect)."""
        return self.timestamp != self.requested_timestamp


@dataclass(frozen=True)
class Verdict:
    """What a replay is: the capture served (``timestamp``) and the digest check."""

    timestamp: str
    digest_ok: bool | None


def judge_replay(capture: CdxCapture, memento: Memento | None, raw: bytes, content: bytes,
                 url: str, *, verify: str, accept_redirects: bool, final: bool,
                 mismatches: set[str]) -> Verdict:
    """Whether the payload (``raw`` as sent, ``content`` decoded) replayed from ``url`` is
    the listed ``capture``; raises :class:`WaybackError` when it is not.

    ``verify`` is the digest mode ("strict", "warn", "off"); ``final`` says no retry is
    left; ``mismatches`` holds the SHA-1 of each payload that did not match so far, across
    the attempts of one fetch (a payload seen twice is a deterministic mismatch).
    """
    expected = normalise_digest(capture.digest) if verify != "off" else None
    matches = expected is not None and expected in (digest_like(expected, raw),
                                                    digest_like(expected, content))
    if memento is None:
        if matches:  # the listed payload, whatever happened to its headers on the way
            return Verdict(capture.timestamp, True)
        raise WaybackError(EXCLUDED, url, "HTTP 200 without Memento headers: the archive's "
                                          f"own page, not a capture ({excerpt(content)})")
    served = memento.timestamp or capture.timestamp
    if served != capture.timestamp:
        if accept_redirects:
            return Verdict(served, True if matches else None)
        same = "the same payload" if matches else "another payload"
        where = f" at {memento.url}" if memento.url else ""
        raise WaybackError(CAPTURE_REDIRECTED, url, f"listed {capture.timestamp}, the archive "
                                                    f"served {served}{where} ({same})")
    if expected is None or matches:
        return Verdict(served, True if matches else None)
    fingerprint = hashlib.sha1(content).hexdigest()
    repeated = fingerprint in mismatches
    mismatches.add(fingerprint)
    if verify == "warn" and (repeated or final):
        return Verdict(served, False)
    again = "; the same payload again, so retrying cannot help" if repeated else ""
    raise WaybackError(DIGEST_MISMATCH, url, f"CDX digest {expected}{again}", final=repeated)
