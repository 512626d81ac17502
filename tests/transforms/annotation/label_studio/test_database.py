"""The migrated Label Studio database the server fixture starts on: one per Label Studio
version and admin, and a kept one is copied, never rebuilt (``database.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.transforms.annotation.label_studio.database import (
    DATABASE,
    data_directory,
    label_studio_version,
    template_path,
)


def _venv(root: Path, version: str) -> Path:
    """A venv of Label Studio ``version`` as far as the database cares: its executable and its
    distribution's metadata directory."""
    (root / "lib" / "python3.11" / "site-packages" / f"label_studio-{version}.dist-info").mkdir(
        parents=True)
    (root / "bin").mkdir()
    executable = root / "bin" / "label-studio"
    executable.write_text("#!/bin/sh\nexit 1\n")  # never started: a kept database is copied
    return executable


def test_each_label_studio_version_has_its_database(tmp_path):
    old, new = _venv(tmp_path / "a", "1.23.2"), _venv(tmp_path / "b", "1.24.0")
    assert label_studio_version(old) == "1.23.2"
    assert template_path(old, tmp_path / "cache").parent.name.startswith("1.23.2-")
    assert template_path(old, tmp_path / "cache") != template_path(new, tmp_path / "cache")


def test_a_venv_without_one_label_studio_is_refused(tmp_path):
    executable = _venv(tmp_path / "a", "1.23.2")
    (tmp_path / "a" / "lib" / "python3.11" / "site-packages" / "label_studio-1.24.0.dist-info"
     ).mkdir()
    with pytest.raises(RuntimeError, match="no single label_studio distribution"):
        label_studio_version(executable)


def test_a_kept_database_is_copied_into_the_data_directory(tmp_path):
    executable = _venv(tmp_path / "venv", "1.23.2")
    kept = template_path(executable, tmp_path / "cache")
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"SQLite format 3\x00 migrated")
    (tmp_path / "data").mkdir()
    directory = data_directory(executable, tmp_path / "cache", tmp_path / "data")
    assert (directory / DATABASE).read_bytes() == kept.read_bytes()
