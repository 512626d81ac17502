"""Publish a release version to the Hugging Face Hub: ``release publish DIR --to hf://...``.

A version is one commit on the dataset repository's ``main`` branch, whose files are exactly
the version directory's (files of an earlier version that this one lacks are deleted in the
same commit), and a tag named after the version at that commit: ``load_dataset(repo,
revision="1.0.0")`` gets that version, ``main`` the last one published. A version whose tag
exists is refused before anything is sent (``HubVersionExistsError``). The release is checked
against its manifest first (``verify.require_intact``), and every file is sent as it is on disk.

``plan_publish`` is what ``--dry-run`` prints: target repo, revision, files and sizes, with no
network access. The upload is ``huggingface_hub``'s ``create_commit``: the Hub's preupload
answer decides per file (``lfs`` for what the repo's ``.gitattributes`` sends to LFS, such as
every ``*.parquet`` and ``*.gz``, and for files over 10 MiB; ``regular`` otherwise). Regular
files travel inside the commit; LFS files first go to the Hub's storage, through xet when
``hf_xet`` is installed (a dependency of ``huggingface_hub`` on x86-64 and arm64) unless
``HF_HUB_DISABLE_XET=1``, through the Git LFS batch API otherwise, and the commit references
them by sha256. A failed upload raises ``HubUploadError`` (nothing is committed or tagged).
The endpoint is ``HF_ENDPOINT`` (default https://huggingface.co) and the token the standard
one (``HF_TOKEN`` or ``hf auth login``'s file), never printed; nor are the signed storage URLs
the Hub hands out (their query is dropped from error messages).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from transforms.release.manifest import read_manifest
from transforms.release.storage import is_local, list_files
from transforms.release.verify import require_intact

HUB_PREFIX = "hf://datasets/"
_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
_REPO = re.compile(rf"({_PART})/({_PART})")


class InvalidHubTarget(ValueError):
    """``--to`` is not ``hf://datasets/ORG/NAME`` with valid Hub names."""


class HubVersionExistsError(RuntimeError):
    """The repository already has a revision (tag) named after the version."""


class HubUploadError(RuntimeError):
    """A file's upload to the Hub's storage (xet or LFS) failed: the version was not committed."""


_SIGNED_QUERY = re.compile(r"(https?://[^\s?'\"]+)\?[^\s'\"]*")


def _explain(error: BaseException) -> str:
    """The messages of ``error`` and of its causes, outermost first, without repeats and
    without the query of any URL (a signed storage URL is a credential)."""
    messages: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = " ".join(str(current).split()).rstrip(".") or type(current).__name__
        if not any(text in earlier for earlier in messages):
            messages.append(text)
        current = current.__cause__ or current.__context__
    return _SIGNED_QUERY.sub(r"\1?...", ": ".join(messages))


def hub_repo_id(target: str) -> str:
    """``ORG/NAME`` of ``hf://datasets/ORG/NAME`` (``InvalidHubTarget`` otherwise)."""
    rest = target[len(HUB_PREFIX):] if target.startswith(HUB_PREFIX) else None
    match = _REPO.fullmatch(rest or "")
    if not match or ".." in rest or "--" in rest:
        raise InvalidHubTarget(
            f"--to {target!r}: expected hf://datasets/ORG/NAME (letters, digits, '.', '_', "
            "'-'; no '..' or '--'; at most 96 characters each)")
    return rest


@dataclass
class PublishPlan:
    """What a publish sends: the version's files (relative path, bytes) to ``repo_id`` at
    revision (tag) ``version``."""

    path: str
    repo_id: str
    dataset: str
    version: str
    files: list[tuple[str, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "repo": f"{HUB_PREFIX}{self.repo_id}",
                "revision": self.version, "branch": "main", "dataset": self.dataset,
                "version": self.version,
                "files": [{"path": p, "bytes": n} for p, n in self.files],
                "bytes": sum(n for _, n in self.files)}


def plan_publish(version_dir: str, target: str) -> PublishPlan:
    """Validate the target and the release (local, intact) and list what would be sent;
    no network access."""
    repo_id = hub_repo_id(target)
    if not is_local(version_dir):
        raise InvalidHubTarget(f"{version_dir}: publish reads a local release directory")
    require_intact(version_dir)
    manifest = read_manifest(version_dir)
    files = [(name, os.path.getsize(os.path.join(version_dir, *name.split("/"))))
             for name in list_files(version_dir)]
    return PublishPlan(version_dir, repo_id, str(manifest.get("dataset", "")),
                       str(manifest.get("version", "")), files)


CONNECT_TIMEOUT = 30.0  # seconds to open a connection to the Hub or its storage
READ_TIMEOUT = 120.0  # seconds the Hub or its storage may stay silent within one request


@contextmanager
def bounded_hub_session(connect: float = CONNECT_TIMEOUT,
                        read: float = READ_TIMEOUT) -> Iterator[None]:
    """``huggingface_hub``'s shared HTTP client with these timeouts while the block runs.

    Its default client has none (``timeout=None``), so a Hub that stops answering would hang
    a publish for ever. The client is process-wide (``set_client_factory``): the default
    factory is put back on the way out, so other users of ``huggingface_hub`` in the process
    (``datasets``) are left as they were. Uploads through ``hf_xet`` use its own client.
    The client's request log (INFO, with the signed storage URLs) is silenced meanwhile."""
    from huggingface_hub.utils import _http

    def factory() -> Any:
        client = _http.default_client_factory()
        client.timeout = type(client.timeout)(read, connect=connect)
        return client

    # the HTTP client logs every request's URL at INFO, and the Hub's storage URLs are signed:
    # credentials, kept out of any log while the block runs
    loggers = [logging.getLogger(name) for name in ("httpx", "httpx2")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(max(logger.getEffectiveLevel(), logging.WARNING))
    _http.set_client_factory(factory)
    try:
        yield
    finally:
        _http.set_client_factory(_http.default_client_factory)
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def publish_to_hub(plan: PublishPlan, endpoint: str | None = None, private: bool = False,
                   connect_timeout: float = CONNECT_TIMEOUT,
                   read_timeout: float = READ_TIMEOUT) -> dict[str, Any]:
    """Send ``plan``: create the repo (if needed), one commit on ``main`` holding exactly the
    version's files, then tag it with the version, every request bounded by the timeouts
    (``bounded_hub_session``). Returns the plan's dict with ``commit``."""
    with bounded_hub_session(connect_timeout, read_timeout):
        try:
            return _publish(plan, endpoint, private)
        except _transport_errors() as error:  # a timeout, a refused or reset connection
            raise HubUploadError(
                f"publishing {plan.dataset} {plan.version} to {HUB_PREFIX}{plan.repo_id} did "
                f"not complete, the version is not tagged: {_explain(error)}") from error


def _transport_errors() -> tuple[type[BaseException], ...]:
    """The HTTP client's transport errors (timeouts, connection failures): ``httpx``'s in
    ``huggingface_hub`` 1.x, its fork ``httpx2``'s in 2.x."""
    from huggingface_hub.utils import _http

    client = getattr(_http, "httpx2", None) or _http.httpx
    return (client.TransportError,)


def _publish(plan: PublishPlan, endpoint: str | None, private: bool) -> dict[str, Any]:
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
    from huggingface_hub.errors import HfHubHTTPError

    api = HfApi(endpoint=endpoint or os.environ.get("HF_ENDPOINT") or None)
    repo = {"repo_id": plan.repo_id, "repo_type": "dataset"}
    api.create_repo(**repo, exist_ok=True, private=private)
    if plan.version in {tag.name for tag in api.list_repo_refs(**repo).tags}:
        raise HubVersionExistsError(
            f"{HUB_PREFIX}{plan.repo_id} already has revision {plan.version}; publish "
            "another version (a published revision is never moved)")
    sent = {name for name, _ in plan.files}
    stale = [name for name in api.list_repo_files(**repo) if name not in sent
             and name != ".gitattributes"]
    operations = [CommitOperationAdd(name, os.path.join(plan.path, *name.split("/")))
                  for name, _ in plan.files] + [CommitOperationDelete(n) for n in stale]
    try:
        commit = api.create_commit(**repo, operations=operations,
                                   commit_message=f"{plan.dataset} {plan.version}")
    except HfHubHTTPError:
        raise  # the Hub's own answer (refused commit, LFS batch error): its message is clear
    except (RuntimeError, ValueError, OSError) as error:
        # an LFS PUT refused by the storage comes wrapped in RuntimeError, a batch answer with
        # per-object errors as ValueError, an xet or network failure as ConnectionError
        raise HubUploadError(
            f"uploading {plan.dataset} {plan.version} to {HUB_PREFIX}{plan.repo_id} failed, "
            f"nothing was committed: {_explain(error)}") from error
    api.create_tag(**repo, tag=plan.version, revision=commit.oid,
                   tag_message=f"{plan.dataset} {plan.version}")
    return {**plan.to_dict(), "commit": commit.oid, "deleted": sorted(stale)}
