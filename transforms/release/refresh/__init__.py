"""Refresh: build a version on the previous one (``--previous``), carrying unchanged rows.

* ``previous``: resolve and check the previous release before any work (exit 2 or 5);
* ``previous_rows``: what its rows say, read before any work (class labels in range, the
  label names a row option's own column holds, the footers' dataset);
* ``checked_read``: every read of a previous file hashed against its verified manifest;
* ``lock``: one ``--previous auto`` refresh of a dataset at a time (``.refresh.lock``);
* ``carry``: the Beam steps that carry rows of unchanged inputs and count what changed;
* ``counters``: ``refresh.carried``, ``recomputed``, ``new``, ``removed``;
* ``report``: ``stats.json``'s ``refresh``, the summary line and the card's "Changes since".

Each dataset says what one input is and when it is unchanged (``transforms.core.spec.
RefreshRule``); the runner (``pipelines.cli.spec_runner``) opens the previous release and
refuses changed row options, and ``publish`` records the lineage.
"""
