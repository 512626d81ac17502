"""Keep Hub credentials out of what publish prints and logs.

``redact`` removes from a text, before anything folds its lines:

* the known secrets (the tokens publish may send) in any spelling: literal, cut by
  whitespace or newlines (or their ``\\n`` escapes), with any of their characters
  percent-encoded (``%5F``, ``%5f``, ``%255F``), JSON-, Python- or HTML-escaped (``\\u005f``,
  ``\\x5f``, ``&#95;``), and base64-encoded within a longer value (``Basic`` of
  ``user:token``); and every fragment of them: any run of ``FRAGMENT`` or more consecutive
  characters of a secret, so the two halves of a token cut in two are both masked;
* anything shaped like a Hugging Face token (``hf_`` or ``api_org_`` followed by 30 or more
  letters and digits), however its characters are encoded;
* the value of an ``Authorization``/``Bearer`` credential, and the query of every URL (the
  Hub's signed storage URLs carry their signature there).

``redacting_logs`` applies it to every log record handled while a publish runs, tracebacks
included, and takes itself away after.
"""

from __future__ import annotations

import base64
import logging
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

MASK = "***"
FRAGMENT = 8  # a run of this many characters of a known secret is masked
_TOKEN_SHAPED = re.compile(r"(?<![A-Za-z0-9])(hf_|api_org_)[A-Za-z0-9]{30,}")
_CREDENTIAL = re.compile(r"(?i)\b(bearer\s+|basic\s+|token=|token:\s*)[^\s'\",;)}\]&]+")
_AUTH_HEADER = re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?)(?!bearer\b|basic\b)"
                          r"[^\s'\",;)}\]]+")
_SIGNED_QUERY = re.compile(r"(https?://[^\s?'\"]+)\?[^\s'\"]*")
# one character spelled otherwise: %XX (percent-encoded, maybe again: %25XX), \uXXXX or \xXX
# (JSON, Python; any number of backslashes), &#N; or &#xN; (HTML), \n \r \t (escaped blanks)
_ESCAPE = re.compile(r"%(?:25)*([0-9A-Fa-f]{2})|\\+u([0-9A-Fa-f]{4})|\\+x([0-9A-Fa-f]{2})"
                     r"|&#(\d{1,7});|&#[xX]([0-9A-Fa-f]{1,6});|\\+([nrt])")
_BLANKS = {"n": "\n", "r": "\r", "t": "\t"}
_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_")
_LOGGERS = ("huggingface_hub", "httpx", "httpx2", "httpcore", "httpcore2", "urllib3")


def known_tokens() -> list[str]:
    """The tokens publish may send: ``HF_TOKEN`` and the one ``huggingface_hub`` resolves
    (``HF_TOKEN`` or ``hf auth login``'s file)."""
    tokens = [os.environ.get("HF_TOKEN") or ""]
    try:
        from huggingface_hub import get_token

        tokens.append(get_token() or "")
    except ImportError:
        pass
    return sorted({t for t in tokens if len(t) >= 4}, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` without the ``secrets`` (in any spelling, and any fragment of them),
    token-shaped strings, credential values and URL queries (each replaced by ``***``)."""
    secrets = [s for s in secrets if s]
    if secrets:
        text = _mask(text, _secret_spans(text, secrets))
    text = _mask(text, _shaped_spans(text))
    text = _CREDENTIAL.sub(lambda m: m[1] + MASK, text)
    text = _AUTH_HEADER.sub(lambda m: m[1] + MASK, text)
    return _SIGNED_QUERY.sub(r"\1?...", text)


def _decoded(text: str, skip_blanks: bool) -> tuple[str, list[int], list[int]]:
    """``text`` with every escaped character decoded (``_ESCAPE``), and with blanks and
    invisible format characters left out when ``skip_blanks``; for each character kept, the
    start and end of its spelling in ``text``."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []

    def keep(char: str, start: int, end: int) -> None:
        if skip_blanks and (char.isspace() or unicodedata.category(char) == "Cf"):
            return
        chars.append(char)
        starts.append(start)
        ends.append(end)

    position = 0
    for match in _ESCAPE.finditer(text):
        for index in range(position, match.start()):
            keep(text[index], index, index + 1)
        hexa = match[1] or match[2] or match[3] or match[5]
        code = int(hexa, 16) if hexa else int(match[4]) if match[4] else None
        if code is None:
            keep(_BLANKS[match[6]], match.start(), match.end())
        elif code <= 0x10FFFF:
            keep(chr(code), match.start(), match.end())
        position = match.end()
    for index in range(position, len(text)):
        keep(text[index], index, index + 1)
    return "".join(chars), starts, ends


def _base64_cores(secret: str) -> set[str]:
    """What base64 of any value holding ``secret`` surely contains, whatever precedes it
    (three alignments; standard and URL-safe alphabets)."""
    data = secret.encode()
    cores = set()
    for skip in range(3):
        whole = data[skip:][:(len(data) - skip) // 3 * 3]
        if len(whole) >= 6:
            encoded = base64.b64encode(whole).decode()
            cores |= {encoded, encoded.replace("+", "-").replace("/", "_")}
    return cores


def _secret_spans(text: str, secrets: list[str]) -> list[tuple[int, int]]:
    """Where ``text`` spells a secret, part of one, or base64 of one (start, end)."""
    flat, starts, ends = _decoded(text, skip_blanks=True)
    spans = []
    for secret in secrets:
        size = min(FRAGMENT, len(secret))
        grams = {secret[i:i + size] for i in range(len(secret) - size + 1)}
        for index in range(len(flat) - size + 1):
            if flat[index:index + size] in grams:
                spans.append((starts[index], ends[index + size - 1]))
        for core in _base64_cores(secret):
            index = flat.find(core)
            while index >= 0:
                start, end = starts[index], ends[index + len(core) - 1]
                while start > 0 and text[start - 1] in _BASE64:
                    start -= 1
                while end < len(text) and text[end] in _BASE64:
                    end += 1
                spans.append((start, end))
                index = flat.find(core, index + 1)
    return spans


def _shaped_spans(text: str) -> list[tuple[int, int, str]]:
    """Where ``text`` spells a token-shaped string, however encoded (start, end, prefix)."""
    if not any(sign in text for sign in ("hf", "HF", "api", "API", "%", "\\", "&#")):
        return []
    flat, starts, ends = _decoded(text, skip_blanks=False)
    return [(starts[m.start()], ends[m.end() - 1], m[1]) for m in _TOKEN_SHAPED.finditer(flat)]


def _mask(text: str, spans: list[tuple[int, int]] | list[tuple[int, int, str]]) -> str:
    """``text`` with each span (merged where they touch) replaced by its prefix + ``***``."""
    if not spans:
        return text
    merged: list[list] = []
    for span in sorted(spans):
        start, end, prefix = span[0], span[1], span[2] if len(span) > 2 else ""
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end, prefix])
    parts, position = [], 0
    for start, end, prefix in merged:
        parts += [text[position:start], prefix, MASK]
        position = end
    return "".join(parts) + text[position:]


class _Redactor(logging.Filter):
    """Rewrites each record's message (and formatted traceback) without secrets."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage(), self.secrets)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.secrets)
        return True


@contextmanager
def redacting_logs(secrets: Iterable[str] = ()) -> Iterator[None]:
    """While the block runs, every record reaching a handler of the root logger or of the
    HTTP and Hub loggers is redacted (``redact``), whichever logger emitted it."""
    redactor = _Redactor([s for s in secrets if s])
    handlers = {id(h): h for name in ("", *_LOGGERS)
                for h in logging.getLogger(name).handlers}
    if logging.lastResort is not None:  # what prints a record when no handler is configured
        handlers[id(logging.lastResort)] = logging.lastResort
    loggers = [logging.getLogger(name) for name in _LOGGERS]
    targets = [*handlers.values(), *loggers]
    for target in targets:
        target.addFilter(redactor)
    try:
        yield
    finally:
        for target in targets:
            target.removeFilter(redactor)
