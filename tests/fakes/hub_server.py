"""A fake Hugging Face Hub on 127.0.0.1: the part of the Hub API ``huggingface_hub`` uploads with.

``HfApi(endpoint=fake.base_url)`` (or ``HF_ENDPOINT``) talks to it as to huggingface.co:

* ``POST /api/repos/create`` (409 when the repo exists, which ``exist_ok`` accepts). A new repo
  has one commit holding the Hub's default dataset ``.gitattributes``
  (``tests.fakes.gitattributes``: ``*.parquet``, ``*.arrow``, ``*.gz``, ``*.zst``, ... go to LFS);
* ``GET /api/datasets/<repo>/refs`` (branches, tags, converts) and
  ``GET /api/datasets/<repo>/tree/<revision>`` (every file, ``recursive`` or not: one page; an
  LFS file has the ``lfs`` entry and the pointer's git oid, as on the Hub);
* ``POST /api/validate-yaml`` (the README front matter must parse as YAML);
* ``POST /api/datasets/<repo>/preupload/<revision>``: the upload mode of every file, and
  ``shouldIgnore`` for a path the ``.gitignore`` leaves out (the one sent in the request's
  ``gitIgnore``, else the revision's; ``huggingface_hub`` then drops the file from the
  commit), decided as the Hub does: ``lfs`` when the revision's ``.gitattributes`` sends the
  path to LFS, when the file is over ``regular_limit`` bytes (10 MiB) or when its 512-byte
  sample is binary (a NUL byte: the Hub refuses binary files in git, so the fake sends them to
  LFS), ``regular`` otherwise; a path the revision has carries its ``oid`` (sha256 for an LFS
  file, the git blob sha1 otherwise), which the client uses to drop unchanged files from the
  commit (``preupload_claims``, ``{path: oid}``, makes the fake claim an oid it does not hold:
  a Hub that lies about what it stores);
* ``POST /datasets/<repo>.git/info/lfs/objects/batch``: the Git LFS batch API (``Accept`` and
  ``Content-Type: application/vnd.git-lfs+json``, bearer token). An object the repo's LFS
  storage already has is answered without ``actions`` (nothing to upload, as on the Hub);
  another gets an ``upload`` action whose ``href`` is a signed URL of the fake's storage (no
  token, as S3's presigned URLs; ``storage_url``, a second port on 127.0.0.1, so another
  origin as S3 is for huggingface.co) and a ``verify`` action; an object of
  ``multipart_threshold`` bytes or more, when the client offers ``multipart``, gets the Hub's
  multipart form: ``header`` holds ``chunk_size`` and one signed part URL per part number,
  ``href`` is the completion URL. With ``verify_on_storage`` the ``verify`` action too is a
  signed URL of the storage (another origin), as a Hub whose verify endpoint lives on
  another host would answer. The answer's ``transfer`` is ``basic`` (or ``multipart``),
  never ``xet``: this is a repo without xet storage, so a client that offers ``xet``
  (huggingface_hub 0.3x with hf_xet) keeps to LFS. (huggingface_hub 2.x never asks: it
  uploads through xet whenever hf_xet is installed and ``HF_HUB_DISABLE_XET`` is not set, and
  this fake does not speak xet's CAS protocol: its ``xet-write-token`` route answers 501, so
  such an upload fails at once);
* ``PUT`` of the object bytes to the signed URL: the body must have the batch's size and hash
  to its oid (S3's XML error ``BadDigest`` / ``IncompleteBody`` otherwise), then it is stored;
  a multipart upload's parts answer an ``ETag``, the completion ``POST`` lists them;
* ``POST /datasets/<repo>.git/info/lfs/objects/verify`` (the object must be stored, whole);
* ``POST /api/datasets/<repo>/commit/<revision>``: the NDJSON commit (``header``, ``file``,
  ``lfsFile``, ``deletedFile``, ``deletedFolder``) applied as a new commit on the branch. An
  ``lfsFile`` must name an uploaded object of its size (400 otherwise, as the Hub refuses a
  pointer to a missing object), a regular ``file`` must not be binary; an LFS path that
  ``.gitattributes`` does not cover is added to it in the same commit (what the Hub does for a
  large file of another extension);
* ``POST /api/datasets/<repo>/tag/<revision>`` (409 when the tag exists);
* ``GET``/``HEAD /datasets/<repo>/resolve/<revision>/<path>``: a regular file's bytes; an LFS
  file is a 302 to its signed download URL with ``X-Linked-Etag`` (its sha256) and
  ``X-Linked-Size``, as the Hub redirects to its CDN (``hf_hub_download`` reads both).

Every request but the signed storage URLs must carry ``Authorization: Bearer <token>`` (401
otherwise); ``storage_requests`` keeps ``(method, path, headers)`` of every request to the
storage (lower-case header names), so a test sees whether a token reached another origin.
``repos`` holds the state: per repo its commits (``{oid: {path: bytes}}``, LFS files
by their content), which paths of each commit are LFS pointers, branches, tags and the LFS
objects (``{sha256: bytes}``). ``lfs_batches`` keeps every batch request's JSON, ``lfs_puts``
the oid of every object PUT (and of every completed multipart upload), ``commit_items`` the
``(key, path)`` of every line of every commit request.

Faults for ``fail(path_substring, ...)``: a ``(status, json[, headers])`` tuple answers that
instead of the real response (any method; ``bytes`` instead of the JSON value are sent as they
are, e.g. a malformed JSON answer); ``"corrupt"`` flips a byte of a PUT body before it
is checked (bytes damaged in transit); the connection faults of ``tests.fakes.base`` on GET.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

import yaml

from tests.fakes.base import (
    CONNECTION_FAULTS,
    FakeHttpServer,
    FaultInjectingHandler,
    QuietServer,
)
from tests.fakes.gitattributes import (
    GITATTRIBUTES,
    LFS_ATTRS,
    gitignore_rules,
    is_ignored,
    lfs_rules,
    routes_to_lfs,
)

Response = tuple[int, dict[str, str], bytes]
LFS_JSON = "application/vnd.git-lfs+json"
POINTER = "version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n"
S3_ERROR = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            "<Error><Code>{}</Code><Message>{}</Message></Error>")


@dataclass
class FakeRepo:
    """One dataset repository: commits by oid, their LFS paths, branch and tag heads, and the
    LFS storage (objects by sha256)."""

    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    lfs_paths: dict[str, frozenset[str]] = field(default_factory=dict)
    objects: dict[str, bytes] = field(default_factory=dict)

    def head(self, revision: str) -> str | None:
        """The commit oid of a branch, a tag or a commit."""
        return self.branches.get(revision) or self.tags.get(revision) or (
            revision if revision in self.commits else None)

    def files(self, revision: str) -> dict[str, bytes] | None:
        oid = self.head(revision)
        return self.commits[oid] if oid else None

    def is_lfs(self, commit: str, path: str) -> bool:
        """Whether ``path`` is an LFS pointer in ``commit`` (a commit a test wrote into
        ``commits`` by hand: whether its content is a stored LFS object)."""
        if commit in self.lfs_paths:
            return path in self.lfs_paths[commit]
        return _sha256(self.commits[commit][path]) in self.objects


class FakeHub(FakeHttpServer):
    """A loopback Hub; ``token`` is the only accepted bearer token."""

    string_faults = frozenset({*CONNECTION_FAULTS, "corrupt"})

    def __init__(self, token: str = "hf_fake_token", regular_limit: int = 10 << 20,
                 multipart_threshold: int = 20 << 20, chunk_size: int = 10 << 20,
                 verify_on_storage: bool = False) -> None:
        self._init_server()
        self.server_class, self.handler_class = _Server, _Handler
        self.token, self.regular_limit = token, regular_limit
        self.multipart_threshold, self.chunk_size = multipart_threshold, chunk_size
        self.verify_on_storage = verify_on_storage
        self.verify_base: str | None = None  # e.g. the Hub as http://localhost:PORT
        self.kept_on_delete: set[str] = set()  # paths a commit's deletion leaves in place
        self.preupload_claims: dict[str, str] = {}
        self.storage_requests: list[tuple[str, str, dict[str, str]]] = []
        self.repos: dict[str, FakeRepo] = {}
        self.posts: list[str] = []
        self.lfs_batches: list[dict[str, Any]] = []
        self.lfs_puts: list[str] = []
        self.commit_items: list[list[tuple[str, str]]] = []
        self._secret = os.urandom(16)
        self._parts: dict[tuple[str, str], dict[int, bytes]] = {}
        self._storage_server: _Server | None = None
        self._storage_thread: threading.Thread | None = None

    def start(self):
        """Serve the Hub, and its storage (the signed URLs) on a second port: another origin,
        as S3 and the CDN are for huggingface.co (the client does not follow a redirect to it
        with the token, and reads a file's metadata from the redirect itself)."""
        super().start()
        self._storage_server = self.server_class(("127.0.0.1", 0), self.handler_class)
        self._storage_server.fake = self
        self._storage_thread = threading.Thread(
            target=self._storage_server.serve_forever, kwargs={"poll_interval": 0.05},
            daemon=True)
        self._storage_thread.start()
        return self

    def stop(self) -> None:
        if self._storage_server is not None:
            self._storage_server.shutdown()
            self._storage_server.server_close()
        if self._storage_thread is not None:
            self._storage_thread.join(timeout=5)
        super().stop()

    @property
    def storage_url(self) -> str:
        if self._storage_server is None:
            raise RuntimeError("FakeHub is not started")
        host, port = self._storage_server.server_address[:2]
        return f"http://{host}:{port}"

    def route(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Response:
        url = urlsplit(path)
        if url.path.startswith("/__lfs/"):
            self.storage_requests.append((method, url.path, dict(headers)))
            return self._storage(method, url.path, parse_qs(url.query), headers, body)
        if headers.get("authorization") != f"Bearer {self.token}":
            return _json(401, {"error": "Invalid credentials in Authorization header"})
        parts = [unquote(p) for p in url.path.split("/")]
        if method == "POST" and url.path == "/api/repos/create":
            return self._create(json.loads(body))
        if method == "POST" and url.path == "/api/validate-yaml":
            return self._validate(json.loads(body))
        lfs = re.fullmatch(r"/datasets/([^/]+)/([^/]+)\.git/info/lfs/objects/(batch|verify)",
                           url.path)
        if lfs:
            return self._lfs_api(f"{lfs[1]}/{lfs[2]}", lfs[3], method, headers, body)
        if len(parts) >= 6 and parts[1] == "datasets" and parts[4] == "resolve":
            return self._resolve(f"{parts[2]}/{parts[3]}", parts[5], "/".join(parts[6:]))
        if len(parts) < 6 or parts[1:3] != ["api", "datasets"]:
            return _json(404, {"error": "not found"})
        repo_id, action, revision = f"{parts[3]}/{parts[4]}", parts[5], "/".join(parts[6:])
        repo = self.repos.get(repo_id)
        if repo is None:
            return _json(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
        if method == "GET" and action == "refs":
            return _json(200, {"branches": _refs(repo.branches, "heads"),
                               "tags": _refs(repo.tags, "tags"), "converts": []})
        if action.startswith("xet-"):
            return _json(501, {"error": "this fake Hub has no xet storage: upload through LFS "
                                        "(HF_HUB_DISABLE_XET=1)"})
        commit = repo.head(revision)
        if commit is None:
            return _json(404, {"error": f"Invalid rev id: {revision}"},
                         {"X-Error-Code": "RevisionNotFound"})
        if method == "GET" and action == "tree":
            return _json(200, [_tree_entry(repo, commit, p)
                               for p in sorted(repo.commits[commit])])
        if method == "POST" and action == "preupload":
            return self._preupload(repo, commit, json.loads(body))
        if method == "POST" and action == "commit":
            return self._commit(repo_id, repo, revision, body)
        if method == "POST" and action == "tag":
            tag = json.loads(body)["tag"]
            if tag in repo.tags:
                return _json(409, {"error": "Tag already exists"})
            repo.tags[tag] = commit
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
        files = {".gitattributes": GITATTRIBUTES.encode()}
        oid = _oid(repo_id, files)
        repo.commits[oid], repo.lfs_paths[oid], repo.branches["main"] = files, frozenset(), oid
        return _json(200, {"url": f"{self.base_url}/datasets/{repo_id}", "name": repo_id})

    def _validate(self, payload: dict[str, Any]) -> Response:
        text = payload.get("content", "")
        try:
            if text.startswith("---\n"):
                yaml.safe_load(text[4:text.index("\n---", 4)])
        except (yaml.YAMLError, ValueError) as error:
            return _json(400, {"errors": [{"message": str(error)}]})
        return _json(200, {"errors": [], "warnings": []})

    def _preupload(self, repo: FakeRepo, commit: str, payload: dict[str, Any]) -> Response:
        files = repo.commits[commit]
        rules = lfs_rules(files.get(".gitattributes", b"").decode("utf-8", "replace"))
        ignore = gitignore_rules(payload.get("gitIgnore") if "gitIgnore" in payload else
                                 files.get(".gitignore", b"").decode("utf-8", "replace"))
        answer = []
        for item in payload["files"]:
            path = item["path"]
            lfs = (routes_to_lfs(rules, path) or item["size"] > self.regular_limit
                   or b"\0" in base64.b64decode(item.get("sample", "")))
            entry = {"path": path, "uploadMode": "lfs" if lfs else "regular",
                     "shouldIgnore": is_ignored(ignore, path)}
            if path in files:
                entry["oid"] = (_sha256(files[path]) if repo.is_lfs(commit, path)
                                else _git_oid(files[path]))
            if path in self.preupload_claims:
                entry["oid"] = self.preupload_claims[path]
            answer.append(entry)
        return _json(200, {"files": answer})

    def _lfs_api(self, repo_id: str, action: str, method: str, headers: dict[str, str],
                 body: bytes) -> Response:
        repo = self.repos.get(repo_id)
        if method != "POST":
            return _json(405, {"error": "Method not allowed"})
        if repo is None:
            return _json(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
        if action == "verify":
            payload = json.loads(body)
            data = repo.objects.get(payload.get("oid", ""))
            if data is None or len(data) != payload.get("size"):
                return _json(404, {"error": "Object not found or of another size"})
            return _json(200, {}, content_type=LFS_JSON)
        if LFS_JSON not in headers.get("accept", "") or LFS_JSON not in headers.get(
                "content-type", ""):
            return _json(406, {"message": f"Accept and Content-Type must be {LFS_JSON}"})
        payload = json.loads(body)
        self.lfs_batches.append(payload)
        transfers = payload.get("transfers") or ["basic"]
        if payload.get("operation") != "upload":
            return _json(422, {"message": "this fake serves the upload operation only"})
        if payload.get("hash_algo", "sha256") != "sha256" or "basic" not in transfers:
            return _json(409, {"message": "sha256 objects and the basic transfer only"})
        ref = (payload.get("ref") or {}).get("name")
        if ref is not None and ref.removeprefix("refs/heads/") not in repo.branches:
            return _json(403, {"message": f"{ref} is not a branch you can push to"})
        objects, multipart = [], False
        for item in payload.get("objects", []):
            oid, size = item.get("oid"), item.get("size")
            if not (isinstance(oid, str) and re.fullmatch("[0-9a-f]{64}", oid)
                    and isinstance(size, int) and size >= 0):
                objects.append({"oid": str(oid), "size": size if isinstance(size, int) else 0,
                                "error": {"code": 422, "message": "Invalid oid or size"}})
            elif oid in repo.objects:
                objects.append({"oid": oid, "size": size})  # already stored: no actions
            else:
                chunked = size >= self.multipart_threshold and "multipart" in transfers
                multipart |= chunked
                objects.append({"oid": oid, "size": size, "authenticated": True,
                                "actions": self._actions(repo_id, oid, size, chunked)})
        return _json(200, {"transfer": "multipart" if multipart else "basic",
                           "objects": objects}, content_type=LFS_JSON)

    def _actions(self, repo_id: str, oid: str, size: int, chunked: bool) -> dict[str, Any]:
        hub = self.verify_base or self.base_url  # the Hub may name itself otherwise
        verify = {"href": self._signed("verify", repo_id, oid, size=size) if self.verify_on_storage
                  else f"{hub}/datasets/{repo_id}.git/info/lfs/objects/verify",
                  "header": {}}
        if not chunked:
            return {"upload": {"href": self._signed("upload", repo_id, oid, size=size),
                               "header": {}, "expires_in": 900}, "verify": verify}
        count = -(-size // self.chunk_size)
        header = {"chunk_size": str(self.chunk_size)}
        for number in range(1, count + 1):
            header[f"{number:05d}"] = self._signed("part", repo_id, oid, size=size,
                                                   partNumber=number)
        return {"upload": {"href": self._signed("complete", repo_id, oid, size=size),
                           "header": header, "expires_in": 900}, "verify": verify}

    def _signed(self, kind: str, repo_id: str, oid: str, **query: Any) -> str:
        query = {k: str(v) for k, v in query.items()}
        query["X-Amz-Signature"] = self._signature(kind, repo_id, oid, query)
        return f"{self.storage_url}/__lfs/{kind}/{quote(repo_id)}/{oid}?{urlencode(query)}"

    def _signature(self, kind: str, repo_id: str, oid: str, query: dict[str, str]) -> str:
        signed = json.dumps([kind, repo_id, oid, sorted(
            (k, v) for k, v in query.items() if k != "X-Amz-Signature")])
        return hmac.new(self._secret, signed.encode(), hashlib.sha256).hexdigest()

    def _storage(self, method: str, path: str, query: dict[str, list[str]],
                 headers: dict[str, str], body: bytes) -> Response:
        """The signed URLs (S3 on the Hub): object PUT, parts, completion, verify and download."""
        match = re.fullmatch(
            r"/__lfs/(upload|part|complete|verify|download)/([^/]+/[^/]+)/([0-9a-f]{64})",
            unquote(path))
        flat = {k: v[-1] for k, v in query.items()}
        if not match or not hmac.compare_digest(
                flat.get("X-Amz-Signature", ""), self._signature(*match.groups(), flat)):
            return _s3(403, "SignatureDoesNotMatch", "The request signature we calculated "
                       "does not match the signature you provided.")
        kind, repo_id, oid = match.groups()
        repo = self.repos[repo_id]
        if kind == "download" and method in ("GET", "HEAD"):
            return 200, {"Content-Type": "application/octet-stream"}, repo.objects[oid]
        size = int(flat["size"])
        if kind == "verify" and method == "POST":
            stored = repo.objects.get(oid)
            if stored is None or len(stored) != size:
                return _json(404, {"error": "Object not found or of another size"})
            return _json(200, {}, content_type=LFS_JSON)
        if kind == "upload" and method == "PUT":
            problem = _check_object(body, oid, size)
            if problem:
                return problem
            repo.objects[oid] = body
            self.lfs_puts.append(oid)
            return 200, {"ETag": _etag(body)}, b""
        if kind == "part" and method == "PUT":
            self._parts.setdefault((repo_id, oid), {})[int(flat["partNumber"])] = body
            return 200, {"ETag": _etag(body)}, b""
        if kind == "complete" and method == "POST":
            payload = json.loads(body)
            stored = self._parts.pop((repo_id, oid), {})
            listed = payload.get("parts", [])
            if payload.get("oid") != oid or [p.get("partNumber") for p in listed] != sorted(
                    stored) or any(p.get("etag") != _etag(stored[p["partNumber"]])
                                   for p in listed):
                return _s3(400, "InvalidPart", "One or more of the specified parts could not "
                           "be found or its entity tag did not match.")
            data = b"".join(stored[number] for number in sorted(stored))
            problem = _check_object(data, oid, size)
            if problem:
                return problem
            repo.objects[oid] = data
            self.lfs_puts.append(oid)
            return _json(200, {"oid": oid, "size": size})
        return _s3(405, "MethodNotAllowed", "The specified method is not allowed.")

    def _commit(self, repo_id: str, repo: FakeRepo, branch: str, body: bytes) -> Response:
        if branch not in repo.branches:
            return _json(400, {"error": f"{branch} is not a branch"})
        parent = repo.branches[branch]
        files = dict(repo.commits[parent])
        lfs = {p for p in files if repo.is_lfs(parent, p)}
        untracked, received = [], []
        self.commit_items.append(received)
        for line in body.splitlines():
            item = json.loads(line)
            key, value = item["key"], item["value"]
            path = value.get("path", "")
            received.append((key, path))
            if key == "header":
                if value.get("parentCommit") not in (None, parent):
                    return _json(412, {"error": "A commit has happened since. Please refresh "
                                                "and try again."})
            elif key == "file":
                content = base64.b64decode(value["content"])
                if b"\0" in content[:8000]:
                    return _json(400, {"error": "Your push was rejected because it contains "
                                                f"binary files. Offending file: {path}"})
                files[path] = content
                lfs.discard(path)
            elif key == "lfsFile":
                data = repo.objects.get(value.get("oid", ""))
                if value.get("algo") != "sha256" or data is None or len(data) != value.get(
                        "size"):
                    return _json(400, {"error": "Your push was rejected because an LFS pointer "
                                                "pointed to a file that does not exist. "
                                                f"Offending file: {path}"})
                files[path] = data
                lfs.add(path)
                if not routes_to_lfs(lfs_rules(
                        files.get(".gitattributes", b"").decode("utf-8", "replace")), path):
                    untracked.append(path)
            elif key in ("deletedFile", "deletedFolder"):
                prefix = path.rstrip("/") + "/"
                gone = [p for p in files if p == path or (key == "deletedFolder"
                                                          and p.startswith(prefix))]
                if not gone:
                    return _json(404, {"error": "A file with this name doesn't exist"})
                for name in set(gone) - self.kept_on_delete:  # a Hub that keeps some
                    del files[name]
                    lfs.discard(name)
            else:
                return _json(400, {"error": f"this fake does not take {key}"})
        if untracked:
            attributes = files.get(".gitattributes", b"").decode()
            if attributes and not attributes.endswith("\n"):
                attributes += "\n"
            files[".gitattributes"] = (attributes + "".join(
                f"{path} {LFS_ATTRS}\n" for path in untracked)).encode()
            lfs.discard(".gitattributes")
        oid = _oid(repo_id, files)
        repo.commits[oid], repo.lfs_paths[oid], repo.branches[branch] = files, frozenset(lfs), oid
        return _json(200, {"commitUrl": f"{self.base_url}/datasets/{repo_id}/commit/{oid}",
                           "commitOid": oid})

    def _resolve(self, repo_id: str, revision: str, path: str) -> Response:
        repo = self.repos.get(repo_id)
        if repo is None:
            return _json(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
        commit = repo.head(revision)
        if commit is None:
            return _json(404, {"error": f"Invalid rev id: {revision}"},
                         {"X-Error-Code": "RevisionNotFound"})
        data = repo.commits[commit].get(path)
        if data is None:
            return _json(404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound",
                                                             "X-Repo-Commit": commit})
        if not repo.is_lfs(commit, path):
            return 200, {"Content-Type": "application/octet-stream", "X-Repo-Commit": commit,
                         "ETag": f'"{_git_oid(data)}"'}, data
        oid = _sha256(data)
        return 302, {"Location": self._signed("download", repo_id, oid),
                     "X-Repo-Commit": commit, "X-Linked-Etag": f'"{oid}"',
                     "X-Linked-Size": str(len(data)),
                     "ETag": f'"{_git_oid(_pointer(data).encode())}"'}, b""


def _etag(data: bytes) -> str:
    return f'"{hashlib.md5(data).hexdigest()}"'


def _check_object(data: bytes, oid: str, size: int) -> Response | None:
    """S3's answer to an object that is not the one announced (``None`` when it is)."""
    if len(data) != size:
        return _s3(400, "IncompleteBody", f"You did not provide the number of bytes specified "
                   f"by the Content-Length HTTP header ({len(data)} of {size}).")
    if _sha256(data) != oid:
        return _s3(400, "BadDigest", "The SHA256 you specified did not match the calculated "
                   "checksum.")
    return None


def _tree_entry(repo: FakeRepo, commit: str, path: str) -> dict[str, Any]:
    data = repo.commits[commit][path]
    if not repo.is_lfs(commit, path):
        return {"type": "file", "path": path, "size": len(data), "oid": _git_oid(data)}
    pointer = _pointer(data).encode()
    return {"type": "file", "path": path, "size": len(data), "oid": _git_oid(pointer),
            "lfs": {"oid": _sha256(data), "size": len(data), "pointerSize": len(pointer)}}


def _pointer(data: bytes) -> str:
    return POINTER.format(oid=_sha256(data), size=len(data))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _git_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _oid(repo_id: str, files: dict[str, bytes]) -> str:
    digest = hashlib.sha1(repo_id.encode())
    for path, data in sorted(files.items()):
        digest.update(path.encode() + b"\0" + hashlib.sha1(data).digest())
    return digest.hexdigest()


def _refs(heads: dict[str, str], kind: str) -> list[dict[str, str]]:
    return [{"name": n, "ref": f"refs/{kind}/{n}", "targetCommit": oid}
            for n, oid in sorted(heads.items())]


def _json(status: int, value: Any, headers: dict[str, str] | None = None,
          content_type: str = "application/json") -> Response:
    """A JSON answer (``value`` as bytes: sent as it is, valid JSON or not)."""
    body = value if isinstance(value, bytes) else json.dumps(value).encode()
    return status, {"Content-Type": content_type, **(headers or {})}, body


def _s3(status: int, code: str, message: str) -> Response:
    return status, {"Content-Type": "application/xml"}, S3_ERROR.format(code, message).encode()


class _Server(QuietServer):
    fake: FakeHub


class _Handler(FaultInjectingHandler):
    server: _Server

    def respond(self, fault: Any) -> Response:
        if isinstance(fault, tuple):
            return _json(*fault)
        return self._route("GET", b"")

    def do_HEAD(self) -> None:  # noqa: N802 - BaseHTTPRequestHandler API
        fake = self.server.fake
        fault = fake._begin(self.path, self.headers.get("User-Agent", ""))
        status, headers, body = _json(*fault) if isinstance(fault, tuple) else self._route(
            "HEAD", b"")
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
        except (ConnectionError, TimeoutError):
            self.close_connection = True

    def do_POST(self) -> None:  # noqa: N802 - BaseHTTPRequestHandler API
        self._with_body("POST")

    def do_PUT(self) -> None:  # noqa: N802 - BaseHTTPRequestHandler API
        self._with_body("PUT")

    def _with_body(self, method: str) -> None:
        fake = self.server.fake
        fault = fake._begin(self.path, self.headers.get("User-Agent", ""))
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True  # S3 takes no chunked upload (and this fake neither)
            self._send(*_s3(501, "NotImplemented", "A header you provided implies "
                            "functionality that is not implemented (Transfer-Encoding)"),
                       truncate=False)
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if method == "POST":
            fake.posts.append(self.path)
        if fault == "reset":
            self._reset()
            return
        if isinstance(fault, tuple):
            self._send(*_json(*fault), truncate=False)
            return
        if fault == "corrupt" and body:
            body = bytes([body[0] ^ 0xFF]) + body[1:]
        self._send(*self._route(method, body), truncate=False)

    def _route(self, method: str, body: bytes) -> Response:
        headers = {k.lower(): v for k, v in self.headers.items()}
        return self.server.fake.route(method, self.path, headers, body)
