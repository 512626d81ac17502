"""Where a release goes: ``<root>/<dataset>/<version>/``, its staging directory and ``LATEST``."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass

from apache_beam.io.filesystems import FileSystems

from transforms.release.provenance import code_version
from transforms.release.storage import is_local

MANIFEST = "dataset_info.json"
SUCCESS_MARKER = "_SUCCESS"


class ReleaseExistsError(RuntimeError):
    """The requested version exists and ``--overwrite`` was not given."""


@dataclass(frozen=True)
class ReleaseTarget:
    """Where a release goes: ``<root>/<dataset>/<version>`` and its staging directory."""

    root: str
    dataset: str
    version: str
    run_id: str
    code: tuple[tuple[str, str], ...] = ()

    @classmethod
    def create(cls, root: str, dataset: str, version: str) -> ReleaseTarget:
        """A new run's target; the code version (package, git commit) is read here, at launch,
        not on the worker that publishes (which has no checkout on Dataflow)."""
        return cls(root, dataset, version, uuid.uuid4().hex[:12],
                   tuple(sorted(code_version().items())))

    @property
    def final_dir(self) -> str:
        return FileSystems.join(self.root, self.dataset, self.version)

    @property
    def staging_dir(self) -> str:
        return FileSystems.join(self.root, self.dataset, ".staging",
                                f"{self.version}-{self.run_id}")

    def exists(self) -> bool:
        return FileSystems.exists(FileSystems.join(self.final_dir, MANIFEST)) or (
            is_local(self.final_dir) and os.path.exists(self.final_dir)
        )

    def check_writable(self, overwrite: bool) -> None:
        """Fail before any work when the version exists and may not be replaced."""
        if self.exists() and not overwrite:
            raise ReleaseExistsError(
                f"release {self.final_dir} already exists; choose another --version "
                "or pass --overwrite to replace it"
            )


def latest_path(root: str, dataset: str) -> str:
    return FileSystems.join(root, dataset, "LATEST")

