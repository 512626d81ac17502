"""Is ``--input`` the bundled sample log? The bundled search index serves only that log.

The bundled index (``pipelines/samples/<nq|jnq>/corpus``: 46 English or 28 Japanese pages
written for the sample) holds the pages the sample log's questions were written about; any
other question is linked to whichever of those few pages shares a word with it ("who was the
first person to walk on the moon in 1969" became an example about Saturn). So the linking
options (``transforms.nq.linking_options``) let it serve only the sample log of its own
sample directory, recognised here.

An input is the sample when every file its glob matches is one of the sample logs of that
directory (``query_log*``), by path or by content: a file of the same size and SHA-256 as a
sample log, so a copy of the sample elsewhere (a test's temporary directory, a container
image, a bucket) is still the sample. Only files of a sample log's exact size are read (a few
KB), so a real log is never read here. A log edited in any way holds questions the index was
not written for, and is not the sample.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from transforms.core.inputs import beam_pattern
from transforms.core.samples import sample_path
from transforms.sources.search_corpus import SAMPLE_CORPORA

SAMPLE_LOG_PREFIX = "query_log"
_BLOCK = 1 << 20


@cache
def sample_logs(lang: str) -> dict[str, tuple[int, str]]:
    """``{path: (bytes, sha256)}`` of the bundled sample logs whose questions the bundled
    index of ``lang`` was written for (none for a language without a bundled corpus)."""
    if lang not in SAMPLE_CORPORA:
        return {}
    directory = sample_path(SAMPLE_CORPORA[lang][0])
    logs = {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if name.startswith(SAMPLE_LOG_PREFIX) and os.path.isfile(path):
            with open(path, "rb") as handle:
                logs[os.path.realpath(path)] = (os.path.getsize(path),
                                                hashlib.sha256(handle.read()).hexdigest())
    return logs


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def is_sample_log(pattern: str, lang: str) -> bool:
    """True when ``pattern`` matches at least one file and every file it matches is a sample
    log of ``lang``'s bundled corpus, by path or by size and SHA-256 (module docstring)."""
    logs = sample_logs(lang)
    if not logs:
        return False
    try:
        matched = FileSystems.match([beam_pattern(pattern)])[0].metadata_list
    except (OSError, ValueError):
        return False
    fingerprints = set(logs.values())
    sizes = {size for size, _ in fingerprints}
    for metadata in matched:
        if "://" not in metadata.path and os.path.realpath(metadata.path) in logs:
            continue
        if metadata.size_in_bytes not in sizes:
            return False
        try:
            if (metadata.size_in_bytes, _sha256(metadata.path)) not in fingerprints:
                return False
        except OSError:
            return False
    return bool(matched)
