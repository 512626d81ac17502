"""``cli_main``'s exit codes for the errors of ``transforms.release``, whose modules it no
longer imports itself (``pipelines.cli.entry.loaded_classes``)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from pipelines.cli import entry
from pipelines.cli.errors import (
    EXIT_DAMAGED,
    EXIT_EMPTY,
    EXIT_LATEST_NOT_UPDATED,
    EXIT_RELEASE_EXISTS,
    EXIT_USAGE,
)
from tests.docs.pages import ROOT

EXPECTED = {"ReleaseExistsError": EXIT_RELEASE_EXISTS, "DamagedReleaseError": EXIT_DAMAGED,
            "LatestNotUpdatedError": EXIT_LATEST_NOT_UPDATED, "InvalidReleaseName": EXIT_USAGE,
            "InvalidReleaseRoot": EXIT_USAGE, "NotAReleaseError": EXIT_USAGE,
            "LatestMovedError": EXIT_USAGE, "EmptyReleaseError": EXIT_EMPTY,
            "EndpointUnavailable": EXIT_EMPTY}
GROUPS = (entry.RELEASE_EXISTS, entry.RELEASE_DAMAGED, entry.RELEASE_LATEST_NOT_UPDATED,
          entry.RELEASE_USAGE, entry.RELEASE_EMPTY)


@pytest.mark.parametrize("module, name", [pair for group in GROUPS for pair in group])
def test_each_named_error_exists_and_maps_to_its_code(module: str, name: str) -> None:
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, Exception)
    assert entry.exit_code(cls.__new__(cls)) == EXPECTED[name]
    assert {n for group in GROUPS for _, n in group} == set(EXPECTED)


def test_skipped_is_read_from_run_once_it_is_imported() -> None:
    from transforms.release.run import SKIPPED

    assert entry.skipped_summary("x written to y\n  rows: 1", {SKIPPED: True, "path": "p"}) \
        .startswith("the release")
    assert "(the release was already published" in entry.elapsed_line(1.0, {SKIPPED: True})


def test_the_entry_imports_no_release_module_nor_requests() -> None:
    code = ("import sys, pipelines.cli.entry\n"
            "print(sorted(m for m in sys.modules if m.startswith(('transforms.release.',"
            " 'apache_beam', 'transforms.clients', 'requests'))))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
