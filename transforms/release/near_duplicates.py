"""Near-duplicate search of questions: MinHash signatures and LSH banding, bounded per query.

An evaluation set's distinct question keys are signed (MinHash of their character
``shingles``, seed ``SEED``, datasketch's default SHA-1 32-bit hash, so every run gives the
same signatures) and put in ``BandIndex``: ``b`` bands of ``r`` signature rows each, the
``(b, r)`` datasketch's ``MinHashLSH`` chooses for the LSH threshold, each band a table from
the band's values to the set questions having them, in the set's order. A release question's
candidates are the set questions sharing a band with it; each candidate's true Jaccard
similarity of shingles is computed, and the most similar one at or above the threshold is
the match.

**The candidate cap.** Questions written from one template ("what is the population of
the town of N ...") share every band, so one bucket can hold the whole set and every
release question would be compared with every set question: 100,000 against 100,000 is
10^10 comparisons. A query therefore takes at most ``max_candidates`` distinct candidates
(default ``MAX_CANDIDATES``), band by band in order and, within a bucket, in the set's order,
and stops there. Below the cap the result is exactly the uncapped one. A query that reaches it
(counted in ``SearchStats.capped``, shown in the report) can miss: a set question beyond the
first ``max_candidates`` (a near-duplicate only of a question late in the set, in a crowded
bucket), and so report no match, or a less similar match than the best one. The number of
release rows matched is then a lower bound, and so is the number of set questions matched.
Exact matches (``question_key``) are looked up in a dict and never capped.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import chain, islice
from typing import TYPE_CHECKING, Any

from transforms.release.normalize import question_key, shingles

if TYPE_CHECKING:  # datasketch (and SciPy) load only when an evaluation set is given
    import numpy as np
    from datasketch import MinHash

SEED = 1
LSH_MARGIN = 0.1
MAX_CANDIDATES = 100  # set questions compared with one release question, at most


def lsh_threshold(threshold: float) -> float:
    """The threshold the bands are chosen for: ``LSH_MARGIN`` below the reported one, so that
    pairs just above it are not lost to the approximation."""
    return max(0.05, threshold - LSH_MARGIN)


@functools.lru_cache(maxsize=1 << 20)
def _hash(shingle: bytes) -> int:
    """datasketch's default SHA-1 32-bit hash, memoized: questions share most 3-grams."""
    from datasketch.hashfunc import sha1_hash32

    return sha1_hash32(shingle)


class Signer:
    """MinHash signatures of shingle sets, all from one template (same seed, same hash)."""

    def __init__(self, num_perm: int) -> None:
        from datasketch import MinHash

        self.num_perm = num_perm
        self.template = MinHash(num_perm=num_perm, seed=SEED, hashfunc=_hash)

    def sign(self, grams: Iterable[str]) -> MinHash:
        signature = self.template.copy()
        signature.update_batch([g.encode("utf-8") for g in grams])
        return signature


@dataclass
class SearchStats:
    """What the near-duplicate search did: release questions looked up (``queries``), true
    Jaccard comparisons made (``candidates``) and queries that reached the cap (``capped``)."""

    max_candidates: int
    queries: int = 0
    candidates: int = 0
    capped: int = 0

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


class BandIndex:
    """LSH banding of MinHash signatures whose query returns at most ``max_candidates`` keys."""

    def __init__(self, threshold: float, num_perm: int, max_candidates: int) -> None:
        from datasketch import MinHashLSH

        if max_candidates < 1:
            raise ValueError(f"max_candidates must be at least 1, got {max_candidates}")
        self.ranges: list[tuple[int, int]] = list(
            MinHashLSH(threshold=threshold, num_perm=num_perm).hashranges)
        self.tables: list[dict[bytes, list[int]]] = [{} for _ in self.ranges]
        self.max_candidates = max_candidates

    def insert(self, key: int, values: np.ndarray) -> None:
        """Add ``key`` with the signature ``values`` (a MinHash's ``hashvalues``)."""
        for (start, end), table in zip(self.ranges, self.tables, strict=True):
            table.setdefault(values[start:end].tobytes(), []).append(key)

    def candidates(self, values: np.ndarray) -> tuple[set[int], bool]:
        """The keys sharing a band with ``values``, at most ``max_candidates`` (first bands
        first, each bucket in insertion order), and whether some were left out."""
        found: set[int] = set()
        buckets = [table.get(values[start:end].tobytes()) for (start, end), table
                   in zip(self.ranges, self.tables, strict=True)]
        for position, bucket in enumerate(buckets):
            if not bucket:
                continue
            room = self.max_candidates - len(found)
            found.update(islice(bucket, room))
            if len(found) >= self.max_candidates:
                return found, self._left_out(found, buckets, position, room)
        return found, False

    def _left_out(self, found: set[int], buckets: list[list[int] | None], position: int,
                  room: int) -> bool:
        """Whether a query that reached the cap left a candidate out. A bucket holds a key
        once, so one longer than the cap surely did; otherwise the entries not taken (at most
        ``bands * max_candidates``) are checked, since a key is in many bands."""
        later = [bucket for bucket in buckets[position + 1:] if bucket]
        if any(len(bucket) > self.max_candidates for bucket in [buckets[position], *later]):
            return True
        rest = chain(islice(buckets[position] or (), room, None), *later)
        return not found.issuperset(rest)


class ExternalSet:
    """An evaluation set's distinct question keys (``question_key``): exact, and banded."""

    def __init__(self, path: str, questions: Sequence[tuple[Any, str]], threshold: float,
                 signer: Signer, max_candidates: int = MAX_CANDIDATES) -> None:
        self.path, self.size, self.threshold = path, len(questions), threshold
        self.exact: dict[str, int] = {}
        self.records: list[tuple[Any, str]] = []
        for record in questions:
            normalized = question_key(record[1])
            if normalized and normalized not in self.exact:
                self.exact[normalized] = len(self.records)
                self.records.append(record)
        self.texts = list(self.exact)
        self.stats = SearchStats(max_candidates)
        self.index = BandIndex(lsh_threshold(threshold), signer.num_perm, max_candidates)
        shared: dict[str, str] = {}  # one string object per distinct shingle
        self.grams: list[frozenset[str]] = []
        self.signatures: list[np.ndarray] = []
        from transforms.core.progress import Progress  # Beam counters: only when indexing

        progress = Progress(f"questions of {path} indexed", None, len(self.texts))
        for index, text in enumerate(self.texts):
            grams = frozenset(shared.setdefault(g, g) for g in shingles(text))
            values = signer.sign(grams).hashvalues
            self.grams.append(grams)
            self.signatures.append(values)
            self.index.insert(index, values)
            progress.tick()

    def near(self, grams: set[str], signature: MinHash) -> tuple[int, float, float] | None:
        """The most similar set question at or above the threshold among the candidates:
        (index, true Jaccard, MinHash estimate)."""
        candidates, capped = self.index.candidates(signature.hashvalues)
        self.stats.queries += 1
        self.stats.candidates += len(candidates)
        self.stats.capped += capped
        best: tuple[float, int] | None = None
        size = len(grams)
        for index in candidates:
            other = self.grams[index]
            shared = len(grams & other)
            union = size + len(other) - shared
            similarity = shared / union if union else 0.0
            if similarity >= self.threshold and (best is None or (similarity, -index) > best):
                best = (similarity, -index)
        if best is None:
            return None
        index = -best[1]
        estimate = float((signature.hashvalues == self.signatures[index]).sum()) / len(
            signature.hashvalues)
        return index, best[0], estimate
