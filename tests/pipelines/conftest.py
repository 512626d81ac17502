"""Fixtures of the ``release publish`` tests (``test_release_publish*.py``): two toy
versions and a fake Hub on 127.0.0.1 (``hub_setup``)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from tests.pipelines.hub_setup import fake_hub, toy_versions


@pytest.fixture
def versions(tmp_path) -> tuple[Path, Path]:
    return toy_versions(tmp_path)


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
