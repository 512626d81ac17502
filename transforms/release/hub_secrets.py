"""Keep Hub credentials out of what publish prints and logs.

``redact`` removes from a text the tokens it is given, anything shaped like a Hugging Face
token (``hf_`` or ``api_org_`` followed by 30 or more letters and digits), the value of an
``Authorization``/``Bearer`` credential, and the query of every URL (the Hub's signed storage
URLs carry their signature there). ``redacting_logs`` applies it to every log record handled
while a publish runs, tracebacks included, and takes itself away after.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

MASK = "***"
_TOKEN_SHAPED = re.compile(r"\b(hf_|api_org_)[A-Za-z0-9]{30,}")
_CREDENTIAL = re.compile(r"(?i)\b(bearer\s+|basic\s+|token=|token:\s*)[^\s'\",;)}\]&]+")
_AUTH_HEADER = re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?)(?!bearer\b|basic\b)"
                          r"[^\s'\",;)}\]]+")
_SIGNED_QUERY = re.compile(r"(https?://[^\s?'\"]+)\?[^\s'\"]*")
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
    """``text`` without the ``secrets``, token-shaped strings, credential values and URL
    queries (each replaced by ``***``)."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    text = _TOKEN_SHAPED.sub(lambda m: m[1] + MASK, text)
    text = _CREDENTIAL.sub(lambda m: m[1] + MASK, text)
    text = _AUTH_HEADER.sub(lambda m: m[1] + MASK, text)
    return _SIGNED_QUERY.sub(r"\1?...", text)


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
