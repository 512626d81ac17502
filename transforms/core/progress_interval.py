"""The ``--progress`` interval every progress line of a run uses (``transforms.core.progress``
writes the lines), kept apart from that module so a command can set it without Beam."""

ENV_EVERY = "QA_DATASETS_PROGRESS_EVERY"  # seconds between lines, 0 = none; workers inherit it
TTY_EVERY_S = 2.0  # the interval when stderr is a terminal and the run chose none
QUIET_EVERY_S = 30.0  # ... and when it is not (CI, log files, Dataflow workers)
