"""FilterByUsers (transforms.nq.questions): counts beyond the release's int64 columns."""

from __future__ import annotations

from apache_beam import pvalue

from filters.nq.queries import INT64_MAX
from transforms.nq.questions import REJECTED_QUERIES, FilterByUsers
from transforms.sources.query_logs import QueryStats


def test_summed_counts_beyond_int64_are_rejected_count_overflow():
    stats = QueryStats(events=2 * INT64_MAX, reported_users=3)
    stats.variants["q"] = 2 * INT64_MAX
    out = list(FilterByUsers(2, 7, keep_rejected=True).process(("q", stats)))
    tallies = [o.value for o in out if isinstance(o, pvalue.TaggedOutput) and o.tag == "tally"]
    assert ("queries.rejected.count_overflow", 1) in tallies
    [row] = [o.value for o in out
             if isinstance(o, pvalue.TaggedOutput) and o.tag == REJECTED_QUERIES]
    assert (row["reason"], row["events"], row["users_in_window"]) == (
        "count_overflow", INT64_MAX, 3)
    assert not [o for o in out if not isinstance(o, pvalue.TaggedOutput)]
