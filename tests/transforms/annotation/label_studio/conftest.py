"""Label Studio's own venv (``make label-studio``): tests marked ``label_studio`` skip without it.

Label Studio and its SDK pin versions that clash with Beam's, so they live in
``.cache/label-studio-venv`` (or ``$LABEL_STUDIO_VENV``) and the tests run them by subprocess.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.transforms.annotation.label_studio.database import data_directory
from tests.transforms.annotation.label_studio.server import ADMIN_EMAIL, PASSWORD, Client, Server

PROJECT_ROOT = Path(__file__).resolve().parents[4]
DATABASES = PROJECT_ROOT / ".cache" / "label-studio-db"  # migrated once per version (database)


def label_studio_venv() -> Path:
    return Path(os.environ.get("LABEL_STUDIO_VENV") or PROJECT_ROOT / ".cache/label-studio-venv")


@pytest.fixture(scope="session")
def label_studio_bin() -> Path:
    """The ``bin`` directory of the Label Studio venv; skips the test when it is unusable."""
    venv = label_studio_venv()
    python = venv / "bin" / "python"
    if not python.is_file() or not (venv / "bin" / "label-studio").is_file():
        pytest.skip(f"Label Studio is not installed in {venv} (run `make label-studio`)")
    check = subprocess.run([str(python), "-c", "import label_studio, label_studio_sdk"],
                           capture_output=True, text=True, timeout=120)
    if check.returncode != 0:
        pytest.skip(f"Label Studio in {venv} does not import: {check.stderr[-300:]}")
    return venv / "bin"


@pytest.fixture(scope="session")
def server(label_studio_bin, tmp_path_factory) -> Iterator[Server]:
    """One Label Studio server on 127.0.0.1 for the session, started on a copy of a migrated
    database (a first start, which migrates it, takes minutes on a loaded machine)."""
    executable = label_studio_bin / "label-studio"
    server = Server(executable, data_directory(executable, DATABASES,
                                               tmp_path_factory.mktemp("label-studio")))
    try:
        server.wait_until_up()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def workers(server) -> tuple[Client, Client]:
    """The admin created at start-up, and a second worker who signs up."""
    return (Client(server.url, ADMIN_EMAIL, PASSWORD),
            Client(server.url, "worker2@example.com", PASSWORD + "-2", sign_up=True))
