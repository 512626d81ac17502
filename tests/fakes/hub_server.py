"""A fake Hugging Face Hub on 127.0.0.1: the part of the Hub API ``huggingface_hub`` uploads with.

``HfApi(endpoint=fake.base_url)`` (or ``HF_ENDPOINT``) talks to it as to huggingface.co:

* ``POST /api/repos/create`` (409 when the repo exists, which ``exist_ok`` accepts);
* ``GET /api/datasets/<repo>/refs`` (branches, tags, converts) and
  ``GET /api/datasets/<repo>/tree/<revision>`` (every file, ``recursive`` or not: one page);
* ``POST /api/validate-yaml`` (the README front matter must parse as YAML);
* ``POST /api/datasets/<repo>/preupload/<revision>``: the upload mode of every file. It answers
  ``regular`` for files up to ``regular_limit`` bytes, so their bytes travel base64 inside the
  commit; a larger file is ``lfs`` and its upload (xet or the LFS batch API) is not served,
  which a test sees as an error;
* ``POST /api/datasets/<repo>/commit/<revision>``: the NDJSON commit (``header``, ``file``,
  ``deletedFile``, ``lfsFile``), applied to a new commit on the branch;
* ``POST /api/datasets/<repo>/tag/<revision>`` (409 when the tag exists).

Every request must carry ``Authorization: Bearer <token>`` (401 otherwise). ``repos`` holds
the state: per repo its commits (``{oid: {path: bytes}}``), branches and tags.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml

from tests.fakes.base import FakeHttpServer, FaultInjectingHandler, QuietServer

Response = tuple[int, dict[str, str], bytes]


@dataclass
class FakeRepo:
    """One dataset repository: commits by oid, branch and tag heads."""

    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)

    def files(self, revision: str) -> dict[str, bytes] | None:
        oid = self.branches.get(revision) or self.tags.get(revision) or (
            revision if revision in self.commits else None)
        return self.commits[oid] if oid else None


class FakeHub(FakeHttpServer):
    """A loopback Hub; ``token`` is the only accepted bearer token."""

    def __init__(self, token: str = "hf_fake_token", regular_limit: int = 10 << 20) -> None:
        self._init_server()
        self.server_class, self.handler_class = _Server, _Handler
        self.token, self.regular_limit = token, regular_limit
        self.repos: dict[str, FakeRepo] = {}
        self.posts: list[str] = []

    def route(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Response:
        if headers.get("authorization") != f"Bearer {self.token}":
            return _json(401, {"error": "Invalid credentials in Authorization header"})
        url = urlsplit(path)
        parts = [unquote(p) for p in url.path.split("/")]
        if method == "POST" and url.path == "/api/repos/create":
            return self._create(json.loads(body))
        if method == "POST" and url.path == "/api/validate-yaml":
            return self._validate(json.loads(body))
        if len(parts) < 6 or parts[1:3] != ["api", "datasets"]:
            return _json(404, {"error": "not found"})
        repo_id, action, revision = f"{parts[3]}/{parts[4]}", parts[5], "/".join(parts[6:])
        repo = self.repos.get(repo_id)
        if repo is None:
            return _json(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
        if method == "GET" and action == "refs":
            return _json(200, {"branches": _refs(repo.branches, "heads"),
                               "tags": _refs(repo.tags, "tags"), "converts": []})
        files = repo.files(revision)
        if files is None:
            return _json(404, {"error": f"Invalid rev id: {revision}"},
                         {"X-Error-Code": "RevisionNotFound"})
        if method == "GET" and action == "tree":
            return _json(200, [{"type": "file", "path": p, "size": len(b),
                                "oid": hashlib.sha1(b).hexdigest()}
                               for p, b in sorted(files.items())])
        if method == "POST" and action == "preupload":
            return _json(200, {"files": [
                {"path": f["path"], "shouldIgnore": False,
                 "uploadMode": "regular" if f["size"] <= self.regular_limit else "lfs"}
                for f in json.loads(body)["files"]]})
        if method == "POST" and action == "commit":
            return self._commit(repo_id, repo, revision, body)
        if method == "POST" and action == "tag":
            tag = json.loads(body)["tag"]
            if tag in repo.tags:
                return _json(409, {"error": "Tag already exists"})
            repo.tags[tag] = repo.branches.get(revision, revision)
            return _json(200, {})
        return _json(404, {"error": "not found"})

    def _create(self, payload: dict[str, Any]) -> Response:
        repo_id = f"{payload.get('organization')}/{payload['name']}"
        if payload.get("type") != "dataset":
            return _json(400, {"error": "this fake serves dataset repos only"})
        if repo_id in self.repos:
            return _json(409, {"error": "You already created this dataset repo",
                               "url": f"{self.base_url}/datasets/{repo_id}"})
        repo = self.repos[repo_id] = FakeRepo()
        oid = _oid(repo_id, {})
        repo.commits[oid], repo.branches["main"] = {}, oid
        return _json(200, {"url": f"{self.base_url}/datasets/{repo_id}", "name": repo_id})

    def _validate(self, payload: dict[str, Any]) -> Response:
        text = payload.get("content", "")
        try:
            if text.startswith("---\n"):
                yaml.safe_load(text[4:text.index("\n---", 4)])
        except (yaml.YAMLError, ValueError) as error:
            return _json(400, {"errors": [{"message": str(error)}]})
        return _json(200, {"errors": [], "warnings": []})

    def _commit(self, repo_id: str, repo: FakeRepo, branch: str, body: bytes) -> Response:
        if branch not in repo.branches:
            return _json(400, {"error": f"{branch} is not a branch"})
        files = dict(repo.commits[repo.branches[branch]])
        for line in body.splitlines():
            item = json.loads(line)
            value = item["value"]
            if item["key"] == "file":
                files[value["path"]] = base64.b64decode(value["content"])
            elif item["key"] == "deletedFile":
                if files.pop(value["path"], None) is None:
                    return _json(404, {"error": "A file with this name doesn't exist"})
            elif item["key"] != "header":
                return _json(400, {"error": f"this fake does not take {item['key']}"})
        oid = _oid(repo_id, files)
        repo.commits[oid], repo.branches[branch] = files, oid
        return _json(200, {"commitUrl": f"{self.base_url}/datasets/{repo_id}/commit/{oid}",
                           "commitOid": oid})


def _oid(repo_id: str, files: dict[str, bytes]) -> str:
    digest = hashlib.sha1(repo_id.encode())
    for path, data in sorted(files.items()):
        digest.update(path.encode() + b"\0" + hashlib.sha1(data).digest())
    return digest.hexdigest()


def _refs(heads: dict[str, str], kind: str) -> list[dict[str, str]]:
    return [{"name": n, "ref": f"refs/{kind}/{n}", "targetCommit": oid}
            for n, oid in sorted(heads.items())]


def _json(status: int, value: Any, headers: dict[str, str] | None = None) -> Response:
    return status, {"Content-Type": "application/json", **(headers or {})}, (
        json.dumps(value).encode())


class _Server(QuietServer):
    fake: FakeHub


class _Handler(FaultInjectingHandler):
    server: _Server

    def respond(self, fault: Any) -> Response:
        return self._route("GET", b"")

    def do_POST(self) -> None:  # noqa: N802 - BaseHTTPRequestHandler API
        fake = self.server.fake
        fake._begin(self.path, self.headers.get("User-Agent", ""))
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        fake.posts.append(self.path)
        self._send(*self._route("POST", body), truncate=False)

    def _route(self, method: str, body: bytes) -> Response:
        headers = {k.lower(): v for k, v in self.headers.items()}
        return self.server.fake.route(method, self.path, headers, body)
