"""A Label Studio database migrated once per Label Studio version, copied into each test run's
data directory: a first start on an empty directory runs Django's migrations (about 40 s of CPU,
a minute on a loaded machine), a start on the copy about 5 s.

The copy is what the first start leaves: the migrated schema and the admin that start-up
creates (``ADMIN_EMAIL``), nothing a test made. It is built by a real first start, in a
directory of its own, and kept under ``.cache/label-studio-db/<version>-<admin>/`` (a new
version of Label Studio, or another admin, builds its own)."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from tests.transforms.annotation.label_studio.server import ADMIN_EMAIL, PASSWORD, Server

DATABASE = "label_studio.sqlite3"


def label_studio_version(executable: Path) -> str:
    """The version of the Label Studio installed next to ``executable`` (``bin/label-studio``),
    from its distribution's metadata directory name."""
    venv = executable.resolve().parent.parent
    found = sorted(venv.glob("lib/python*/site-packages/label_studio-*.dist-info"))
    if len(found) != 1:
        raise RuntimeError(f"no single label_studio distribution in {venv}: {found}")
    return found[0].name.removeprefix("label_studio-").removesuffix(".dist-info")


def template_path(executable: Path, cache: Path) -> Path:
    """Where the migrated database of ``executable``'s Label Studio and our admin is kept."""
    admin = hashlib.sha256(f"{ADMIN_EMAIL}\n{PASSWORD}".encode()).hexdigest()[:12]
    return cache / f"{label_studio_version(executable)}-{admin}" / DATABASE


def migrated_database(executable: Path, cache: Path) -> Path:
    """The migrated database (built by a first start of Label Studio when not kept yet)."""
    template = template_path(executable, cache)
    if template.is_file():
        return template
    template.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=template.parent) as first_start:
        server = Server(executable, Path(first_start))
        try:
            server.wait_until_up()
        finally:
            server.stop()
        partial = template.with_suffix(f".{os.getpid()}.partial")
        shutil.copyfile(Path(first_start) / DATABASE, partial)
        partial.replace(template)  # whole or absent, for a run that starts next to this one
    return template


def data_directory(executable: Path, cache: Path, directory: Path) -> Path:
    """``directory`` holding a copy of the migrated database, for ``Server``."""
    shutil.copyfile(migrated_database(executable, cache), directory / DATABASE)
    return directory
