"""The ``main`` of every pipeline module: run, print the summary, map errors to exit codes."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from transforms.release import ReleaseExistsError


def cli_main(run: Callable[[list[str] | None], dict[str, Any]],
             summarize: Callable[[dict[str, Any]], str], argv: list[str] | None = None) -> int:
    """Entry point of a pipeline module: run, print the summary; exit 2 on an existing version."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    for noisy in ("apache_beam", "bm25s"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        result = run(argv)
    except ReleaseExistsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(summarize(result))
    return 0

