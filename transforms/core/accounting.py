"""Account for every record: tallies (kept / dropped by reason), dead letters and rejects.

Every DoFn of a pipeline reports what happened to each input through tagged outputs:

* ``TALLY``: ``(name, count)`` pairs such as ``("pages.skipped.video_page", 1)``. They are also
  Beam ``Metrics`` counters (namespace = stage) for live monitoring, but the release's numbers
  come from the tally PCollection, which is exact on every runner (Prism names metrics
  differently and some runners drop them).
* ``DEAD_LETTER``: a record whose processing raised, with its error, so the job goes on.
* ``REJECTED``: ``(kind, record)`` for records dropped with a named reason that a user may
  want to inspect (skipped pages, duplicate captures, dropped questions).
"""

from __future__ import annotations

import traceback
from typing import Any

from apache_beam import pvalue
from apache_beam.metrics import Metrics

from transforms.core.counters import Counter
from transforms.core.paths import portable_path, portable_traceback

TALLY = "tally"
DEAD_LETTER = "dead_letter"
REJECTED = "rejected"
SIDE_OUTPUTS = (TALLY, DEAD_LETTER, REJECTED)


def tally(stage: str | Counter, name: str | int | None = None,
          count: int = 1) -> pvalue.TaggedOutput:
    """Count ``stage.name`` as a Beam counter and as an exact tally element:
    ``tally(DROPPED)`` or ``tally(DROPPED, 3)`` for a declared ``Counter`` constant
    (``transforms.core.counters``), ``tally("stage", "name", count)`` otherwise."""
    if isinstance(stage, Counter):
        stage, name, count = stage.stage, stage.name, (count if name is None else int(name))
    Metrics.counter(stage, name).inc(count)
    return pvalue.TaggedOutput(TALLY, (f"{stage}.{name}", count))


def dead_letter(stage: str, error: BaseException | str, **context: Any) -> pvalue.TaggedOutput:
    """A record that raised: the stage, the error type and message, and identifying context."""
    Metrics.counter(stage, "dead_letter").inc()
    if isinstance(error, BaseException):
        detail = {"error_type": type(error).__name__, "error": str(error)[:2000],
                  "traceback": portable_traceback(
                      "".join(traceback.format_exception(error)))[-4000:]}
    else:
        detail = {"error_type": "error", "error": error, "traceback": ""}
    return pvalue.TaggedOutput(DEAD_LETTER, {"stage": stage, **_portable(context), **detail})


def rejected(kind: str, record: dict[str, Any]) -> pvalue.TaggedOutput:
    """A record dropped with a named reason, kept for inspection under ``rejected/<kind>``."""
    return pvalue.TaggedOutput(REJECTED, (kind, _portable(record)))


def _portable(record: dict[str, Any]) -> dict[str, Any]:
    """A record with the local file it came from (``source``) as ``portable_path`` records
    it (relative to the working directory, or ``<local>/name``): a release never names an
    absolute local path."""
    source = record.get("source")
    if isinstance(source, str) and source.startswith("/"):
        return {**record, "source": portable_path(source)}
    return record
