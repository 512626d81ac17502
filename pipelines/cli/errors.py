"""Exit codes of every pipeline's ``main`` and the usage and input errors they map from.

| code | meaning |
|---|---|
| 0 | success (also ``--skip-existing`` finding the version published) |
| 1 | the job failed (an unexpected error; the traceback is printed) |
| 2 | usage error: unknown or misspelt option, bad value, unknown runner, invalid version,
  output or split name, an output that is not a release root, not writable, or whose dataset
  directory or ``.staging`` is a symbolic link, a version to replace that is not a release |
| 3 | the release version already exists (pass ``--overwrite`` or ``--skip-existing``) |
| 4 | nothing to release: an ``--input`` matches no file, a network endpoint the run needs
  cannot be reached before the job (``--no-preflight`` skips the check) or keeps failing
  during it (``--max-consecutive-failures``), or the job kept no rows (pass ``--allow-empty``
  to publish an empty release; the failed run's ``stats.json`` and ``rejected/`` are kept
  under ``.staging/`` and the message names its most frequent drop reasons) |
| 5 | ``release verify``: a release does not match its manifest (a file damaged, missing or
  unlisted) |
| 6 | the version was published, but ``LATEST`` could not be updated (disk full): rerun the
  same command with ``--skip-existing`` to repair ``LATEST`` |
| 130, 143 | interrupted by SIGINT (Ctrl-C) or SIGTERM: nothing was published, or the line names
  what a publish already past its point of no return completed (``transforms.core.interrupt``) |
"""

from __future__ import annotations

from transforms.core.errors import NoInputError, UsageError

__all__ = ["EXIT_DAMAGED", "EXIT_EMPTY", "EXIT_INTERRUPTED", "EXIT_JOB_FAILED",
           "EXIT_LATEST_NOT_UPDATED", "EXIT_OK", "EXIT_RELEASE_EXISTS", "EXIT_TERMINATED",
           "EXIT_USAGE", "NoInputError", "UsageError"]

EXIT_OK = 0
EXIT_JOB_FAILED = 1
EXIT_USAGE = 2
EXIT_RELEASE_EXISTS = 3
EXIT_EMPTY = 4
EXIT_DAMAGED = 5
EXIT_LATEST_NOT_UPDATED = 6
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM
