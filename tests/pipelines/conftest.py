"""Fixtures of the ``release publish`` tests (``test_release_publish*.py``): two toy
versions and a fake Hub on 127.0.0.1 (``hub_setup``)."""

from __future__ import annotations

import logging
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import once_per_run
from tests.pipelines.hub_setup import fake_hub, toy_versions


@pytest.fixture(scope="session")
def built_versions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two toy versions, built once per test run (a Beam job each): tests copy them."""
    return Path(once_per_run(tmp_path_factory, "toy_versions",
                             lambda directory: str(toy_versions(directory)[0].parents[2])))


@pytest.fixture
def versions(tmp_path, built_versions: Path) -> tuple[Path, Path]:
    """A copy of the toy versions 1.0.0 and 1.1.0 under ``tmp_path/releases`` (only this
    test's: a test may change them)."""
    shutil.copytree(built_versions / "releases", tmp_path / "releases", symlinks=True)
    toy = tmp_path / "releases" / "toy"
    return toy / "1.0.0", toy / "1.1.0"


def _repoint_closed_log_streams(monkeypatch) -> None:
    """Handlers that earlier tests left writing to a captured stream pytest has closed since
    (a library makes its stderr handler at import) write to this test's stderr: the Hub's
    warnings would otherwise print '--- Logging error ---' tracebacks the tests look for."""
    loggers = [logging.getLogger(), *(logger for logger in
                                      logging.Logger.manager.loggerDict.values()
                                      if isinstance(logger, logging.Logger))]
    for logger in loggers:
        for handler in logger.handlers:
            stream = getattr(handler, "stream", None)
            if type(handler) is logging.StreamHandler and getattr(stream, "closed", False):
                monkeypatch.setattr(handler, "stream", sys.stderr)


@pytest.fixture
def hub(monkeypatch, tmp_path):
    _repoint_closed_log_streams(monkeypatch)
    with fake_hub(monkeypatch, tmp_path) as fake:
        yield fake
