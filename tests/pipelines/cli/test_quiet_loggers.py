"""Third-party loggers are quieted without importing the libraries (bm25s costs every command
0.3 s of CPU with scipy); bm25s, which sets its logger to DEBUG when imported, keeps the level
quieting set, through ``filters.text.bm25.import_bm25s``."""

from __future__ import annotations

import json
import logging
import subprocess
import sys

import pytest

from tests.docs.pages import ROOT

CODE = """
import json, logging, sys
from pipelines.cli.entry import configure_logging
configure_logging({argv!r})
imported = [m for m in ("bm25s", "scipy") if m in sys.modules]
from filters.text.bm25 import import_bm25s
import_bm25s()
print(json.dumps([imported, logging.getLogger("bm25s").level,
                  logging.getLogger("bm25s").getEffectiveLevel()]))
"""


@pytest.mark.parametrize("argv, level", [([], "WARNING"), (["--verbose"], "INFO")])
def test_bm25s_keeps_the_level_set_before_its_import(argv: list[str], level: str) -> None:
    done = subprocess.run([sys.executable, "-c", CODE.format(argv=argv)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    imported, own, effective = json.loads(done.stdout)
    assert imported == [], "configure_logging imported bm25s or scipy"
    assert own == effective == getattr(logging, level)
