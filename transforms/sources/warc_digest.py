"""The capture digest of a WARC response, from its ``WARC-Payload-Digest`` header.

A refresh of NLQuAD (``--previous``) keys every capture by URL, timestamp and payload digest
(``transforms.nlquad.capture_keys``): base32 SHA-1 of the payload, as the Wayback CDX gives
it. A WARC writer records that digest in the response record's ``WARC-Payload-Digest``
header (``sha1:<32 base32 characters>``; some tools write 40 hex digits), so the payload need
not be hashed again. ``header_digest`` takes it when it describes the bytes the build reads:

* the header is present, ``<algorithm>:<value>``, the algorithm SHA-1 and the value 20 bytes in
  base32 or hex (written as base32 upper case, as ``sha1_base32`` writes it);
* the HTTP response has no ``Content-Encoding`` or ``Transfer-Encoding`` (other than
  ``identity``): the header digests the bytes as transferred, and the build reads them
  decoded, so an encoded payload's header digest is not the digest of the page's content.

Otherwise the payload is hashed as before and the reason counted (``input.
warc_digest_hashed.<reason>``): ``missing``, ``malformed`` (no ``algorithm:value``, or a
value that is not 20 bytes in base32 or hex), ``unsupported_algorithm`` (``sha256:``,
``md5:``...) or ``encoded_payload``. ``WARC-Block-Digest`` is not used: it digests the HTTP
headers too (a new ``Date`` header is a new block digest for the same page), and it is not
the payload digest the Wayback CDX and earlier releases' sidecars record.
"""

from __future__ import annotations

import base64
import binascii
import re

PAYLOAD_DIGEST = "WARC-Payload-Digest"
MISSING = "missing"
MALFORMED = "malformed"
UNSUPPORTED_ALGORITHM = "unsupported_algorithm"
ENCODED_PAYLOAD = "encoded_payload"
REASONS = (MISSING, MALFORMED, UNSUPPORTED_ALGORITHM, ENCODED_PAYLOAD)

_BASE32 = re.compile(r"[A-Z2-7]{32}")
_HEX = re.compile(r"[0-9A-F]{40}")
_IDENTITY = ("", "identity")


def parse_payload_digest(value: str | None) -> tuple[str, str]:
    """``(base32 SHA-1 upper case, "")`` of a ``WARC-Payload-Digest`` value, or ``("",
    reason)`` when it cannot be used (see the module docstring)."""
    if value is None or not value.strip():
        return "", MISSING
    algorithm, colon, digest = value.strip().partition(":")
    if not colon or not algorithm or not digest:
        return "", MALFORMED
    if algorithm.strip().lower().replace("-", "") != "sha1":
        return "", UNSUPPORTED_ALGORITHM
    digest = digest.strip().upper()
    if _BASE32.fullmatch(digest):  # 32 base32 characters are 20 bytes
        return digest, ""
    if _HEX.fullmatch(digest):
        return base64.b32encode(binascii.unhexlify(digest)).decode("ascii"), ""
    return "", MALFORMED


def header_digest(rec_headers, http_headers) -> tuple[str, str]:
    """The digest of a WARC response's page from its headers (warcio's ``rec_headers`` and
    ``http_headers``): ``(digest, "")``, or ``("", reason)`` to hash the payload instead."""
    if http_headers is not None:
        for name in ("Content-Encoding", "Transfer-Encoding"):
            if (http_headers.get_header(name) or "").strip().lower() not in _IDENTITY:
                return "", ENCODED_PAYLOAD
    return parse_payload_digest(rec_headers.get_header(PAYLOAD_DIGEST))
