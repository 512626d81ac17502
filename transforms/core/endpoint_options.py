"""``--no-preflight`` and ``--max-consecutive-failures``: how a network run fails fast.

Declared once for every dataset that asks a network endpoint (NQ and JNQ linking, the
NLQuAD Wayback source): ``endpoint_check_options(what, group)`` gives the two option fields,
which a spec's options dataclass assigns to ``no_preflight`` and
``max_consecutive_failures``. Neither changes a published row (``rows=False``).

* Before the job, each endpoint the run will use is asked once
  (``transforms.clients.preflight``); one that cannot be reached stops the run at once with
  exit code 4. ``--no-preflight`` skips that (an endpoint only reachable from the workers).
* During the job, a stage stops the run once ``--max-consecutive-failures`` items in a row
  failed with connection failures after their retries (``transforms.clients.breaker``);
  0 never stops.
"""

from __future__ import annotations

from typing import Any

from transforms.clients.breaker import DEFAULT_LIMIT
from transforms.core.options import non_negative_int, option


def endpoint_check_options(what: str, group: str | None = None) -> dict[str, Any]:
    """The option fields ``no_preflight`` and ``max_consecutive_failures`` of a run that
    asks ``what`` (``the search and page APIs``)."""
    return {
        "no_preflight": option(
            False, f"skip the check, before the job, that {what} can be reached (one request "
                   "each; an unreachable endpoint otherwise stops the run at once, exit code 4)",
            flag=True, group=group, rows=False),
        "max_consecutive_failures": option(
            DEFAULT_LIMIT, f"stop the run when this many items in a row failed to reach {what} "
                           "(refused or reset connections, timeouts, 5xx), each after its "
                           f"retries (default {DEFAULT_LIMIT}; 0 = never stop, try every item)",
            parse=non_negative_int, group=group, rows=False),
    }
