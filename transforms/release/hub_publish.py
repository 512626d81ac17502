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
them by sha256.

The Hub's upload modes are asked with an empty ``.gitignore`` (the commit deletes any the
repository has, the version having none), so none drops a release file from the commit.
Before tagging, the commit's files are read back and compared with the release
(``hub_tree_check``): a file the Hub left out anyway, or one it claimed to hold already but
holds otherwise, leaves ``main`` committed and the version untagged
(``HubNotTaggedError``, ``tree_mismatch``). A tag that fails after the commit is the same
error (``tag_failed``), and so is one the Hub said it made but that reading the tags back
does not find at the commit (a proxy's page answering the tag request); a publish run again
while ``main`` holds exactly the version only tags it. A request refused (401, 403) after the
client withheld the token from its origin (``hub_http``) is ``token_withheld``, which says
so. Any other failure (``HubUploadError`` and the other ``HubPublishError``) says
whether anything may have been committed. Every request goes through the origin-scoped,
bounded client of ``hub_http``. The endpoint is ``HF_ENDPOINT`` (default
https://huggingface.co) and the token the standard one (``HF_TOKEN`` or ``hf auth login``'s
file), sent to the endpoint's origin only and never printed (``hub_secrets``); nor are the
signed storage URLs the Hub hands out.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from transforms.core.interrupt import point_of_no_return
from transforms.release.hub_errors import (
    MALFORMED_ANSWER,
    TAG_FAILED,
    TOKEN_WITHHELD,
    TREE_MISMATCH,
    UPLOAD_REFUSED,
    HubNotTaggedError,
    HubPublishError,
    HubUploadError,
    HubVersionExistsError,
    InvalidHubTarget,
)
from transforms.release.hub_http import (
    HubDeadlines,
    bounded_hub_session,
    failure_kind,
    origin_text,
    withheld_refusal,
)
from transforms.release.hub_options import HubOptions
from transforms.release.hub_secrets import known_tokens, redact
from transforms.release.hub_tree_check import (
    GITATTRIBUTES,
    GITIGNORE,
    read_tree,
    release_digests,
    tree_problems,
)
from transforms.release.manifest import read_manifest
from transforms.release.storage import is_local, list_files
from transforms.release.verify import require_intact

__all__ = ["HUB_PREFIX", "HubNotTaggedError", "HubOptions", "HubPublishError", "HubUploadError",
           "HubVersionExistsError", "InvalidHubTarget", "PublishPlan", "explain",
           "hub_repo_id", "plan_publish", "publish_to_hub"]

HUB_PREFIX = "hf://datasets/"
_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
_REPO = re.compile(rf"({_PART})/({_PART})")


def explain(error: BaseException) -> str:
    """The messages of ``error`` and of its causes, outermost first, without repeats, and
    without any credential (``hub_secrets.redact``, of each message before its lines are
    folded: tokens in any spelling, signed URL queries)."""
    messages: list[str] = []
    seen: set[int] = set()
    secrets = known_tokens()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = current.detail if isinstance(current, HubPublishError) else str(current)
        text = redact(text, secrets)  # before folding: a token cut by a newline is still one
        text = " ".join(text.split()).rstrip(".") or type(current).__name__
        if not any(text in earlier for earlier in messages):
            messages.append(text)
        current = current.__cause__ or current.__context__
    return redact(": ".join(messages), secrets)


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


def publish_to_hub(plan: PublishPlan, endpoint: str | None = None, private: bool = False,
                   options: HubOptions | None = None,
                   clock: Callable[[], float] = time.monotonic) -> dict[str, Any]:
    """Send ``plan``: create the repo (if needed), one commit on ``main`` holding exactly the
    version's files, read back and compared with the release, then tag it with the version;
    every request scoped and bounded by ``options`` (``hub_http.bounded_hub_session``, its
    deadlines on ``clock``). When ``main`` already holds exactly the version (a publish whose
    tag failed), it is only tagged. Returns the plan's dict with ``commit``, ``deleted`` and
    ``already_committed``; raises a ``HubPublishError`` saying what the repository holds."""
    from huggingface_hub import HfApi, constants

    endpoint = (endpoint or os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")
    with bounded_hub_session(endpoint, options, clock) as deadlines:
        return _publish(plan, HfApi(endpoint=endpoint), deadlines, private)


def _publish(plan: PublishPlan, api: Any, deadlines: HubDeadlines,
             private: bool) -> dict[str, Any]:
    """The publish itself, inside the bounded session."""
    return _Publish(plan, api, deadlines).run(private)


class _Publish:
    """The steps of one publish, each failure turned into what it leaves behind."""

    def __init__(self, plan: PublishPlan, api: Any, deadlines: HubDeadlines) -> None:
        self.plan, self.api, self.deadlines = plan, api, deadlines
        self.repo = {"repo_id": plan.repo_id, "repo_type": "dataset"}
        self.what = f"{plan.dataset} {plan.version} to {HUB_PREFIX}{plan.repo_id}"
        self.digests = release_digests(plan.path)

    def run(self, private: bool) -> dict[str, Any]:
        plan = self.plan
        self._before("creating the repository",
                     lambda: self.api.create_repo(**self.repo, exist_ok=True, private=private))
        refs = self._before("reading the repository's branches and tags",
                            lambda: self.api.list_repo_refs(**self.repo))
        if plan.version in {tag.name for tag in refs.tags}:
            raise HubVersionExistsError(
                f"{HUB_PREFIX}{plan.repo_id} already has revision {plan.version}; publish "
                "another version (a published revision is never moved)")
        main = next((b.target_commit for b in refs.branches if b.name == "main"), None)
        tree = self._before("reading main's files", lambda: read_tree(
            self.api, plan.repo_id, main)) if main else {}
        if main and not tree_problems(plan.path, plan.files, self.digests, tree):
            with point_of_no_return(f"{self.what}, tagged {plan.version}"):
                self._tag(main)
            return {**plan.to_dict(), "commit": main, "deleted": [], "already_committed": True}
        sent = {name for name, _ in plan.files}
        stale = sorted(name for name in tree if name not in sent and name != GITATTRIBUTES)
        with ExitStack() as self.no_return:  # entered by _commit right before the commit
            commit = self._commit(stale)
            self._check_tree(commit)
            self._tag(commit)
        return {**plan.to_dict(), "commit": commit, "deleted": stale, "already_committed": False}

    def _before(self, step: str, call: Callable[[], Any]) -> Any:
        """A request before the commit: a failure leaves nothing committed."""
        try:
            self.deadlines.check_publish()
            return call()
        except Exception as error:
            kind = _kind(error)
            self._token_withheld(error, f" ({step})")
            raise HubUploadError(kind, f"{_opening(kind, self.what)} ({step}), {_NOTHING}: "
                                       f"{_cause(error)}") from error

    def _commit(self, stale: list[str]) -> str:
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete
        from huggingface_hub.errors import HfHubHTTPError

        plan = self.plan
        operations = [CommitOperationAdd(name, os.path.join(plan.path, *name.split("/")))
                      for name, _ in plan.files] + [CommitOperationDelete(n) for n in stale]
        additions = operations[:len(plan.files)]
        sent = len(self.deadlines.sent)
        try:
            self.deadlines.check_publish()
            if GITIGNORE not in {name for name, _ in plan.files}:
                # the commit leaves no .gitignore (a stale one is deleted), so none may drop a
                # file from it: preupload with an empty one, not the one main has now
                self.api.preupload_lfs_files(**self.repo, additions=additions,
                                             free_memory=False, gitignore_content="")
            self.no_return.enter_context(point_of_no_return(
                f"{self.what}, tagged {plan.version}"))
            commit = self.api.create_commit(**self.repo, operations=operations,
                                            commit_message=f"{plan.dataset} {plan.version}")
            return str(commit.oid)
        except Exception as error:
            kind = _kind(error)
            posted = any(r.startswith("POST ") and "/commit/" in r
                         for r in self.deadlines.sent[sent:])
            if posted and not isinstance(error, HfHubHTTPError):
                raise HubPublishError(kind, f"the commit of {self.what} got no usable answer, "
                                      "so main may or may not hold it; the version is not "
                                      f"tagged: {_cause(error)}. {_RERUN}") from error
            self._token_withheld(error, "")
            raise HubUploadError(kind, f"{_opening(kind, self.what)}, {_NOTHING}: "
                                       f"{_cause(error)}") from error

    def _token_withheld(self, error: Exception, step: str) -> None:
        """Raise ``token_withheld`` when ``error`` is the Hub's refusal (401 or 403) of a
        request publish sent without the token, its URL naming another origin than the
        endpoint's: the token is kept from it, the Hub may be that origin under another
        name."""
        request = withheld_refusal(error, self.deadlines)
        if request is None:
            return
        method, url = request.split(" ", 1)
        other, hub = origin_text(url), origin_text(self.deadlines.endpoint)
        what = ("the LFS verify step" if "verify" in url.split("?")[0].split("/")
                else "a request")
        raise HubUploadError(TOKEN_WITHHELD, f"publishing {self.what} did not complete{step}, "
                             f"{_NOTHING}: {what} ({request}) was refused without the token, "
                             f"which publish withheld from {other} because it is not the Hub "
                             f"endpoint's origin ({hub}). If {other} is the Hub under another "
                             f"name, set HF_ENDPOINT as the Hub names itself (HF_ENDPOINT="
                             f"{other}) and publish again; if not, that server asks for "
                             f"credentials publish never sends off the Hub: {_cause(error)}"
                             ) from error

    def _check_tree(self, commit: str) -> None:
        plan = self.plan
        try:
            self.deadlines.check_publish()
            tree = read_tree(self.api, plan.repo_id, commit)
        except Exception as error:
            raise HubNotTaggedError(_kind(error), f"{self._committed(commit)}; its files "
                                    f"could not be read back: {_cause(error)}. {_RERUN}",
                                    commit) from error
        problems = tree_problems(plan.path, plan.files, self.digests, tree)
        if problems:
            shown = "; ".join(problems[:20]) + (f"; and {len(problems) - 20} more"
                                                 if len(problems) > 20 else "")
            hint = _OTHER_BYTES_HINT
            if any(p.endswith(": missing") for p in problems):
                hint = _GITIGNORE_KEPT_HINT if GITIGNORE in tree else _LEFT_OUT_HINT
            raise HubNotTaggedError(TREE_MISMATCH, f"{self._committed(commit)}: the commit's "
                                    f"files are not the release's ({shown}). {hint}", commit)

    def _tag(self, commit: str) -> None:
        """Tag ``commit`` with the version, then read the tags back: an answer that says the
        tag was made (a proxy's or portal's page as well) is not taken for one."""
        plan = self.plan
        try:
            self.deadlines.check_publish()
            self.api.create_tag(**self.repo, tag=plan.version, revision=commit,
                                tag_message=f"{plan.dataset} {plan.version}")
        except Exception as error:
            _kind(error)
            raise HubNotTaggedError(TAG_FAILED, f"{self._committed(commit)}: {_cause(error)}. "
                                    f"{self._retry(commit)}", commit) from error
        try:
            self.deadlines.check_publish()
            refs = self.api.list_repo_refs(**self.repo)
        except Exception as error:
            _kind(error)
            unsure = self._committed(commit, "may not have been")
            raise HubNotTaggedError(TAG_FAILED, f"{unsure}: the Hub answered the tag request, "
                                    f"but its tags could not be read back: {_cause(error)}. "
                                    f"{self._retry(commit)}", commit) from error
        target = next((t.target_commit for t in refs.tags if t.name == plan.version), None)
        if target != commit:
            found = (f"tag {plan.version} at {target}" if target else f"no tag {plan.version}")
            raise HubNotTaggedError(TAG_FAILED, f"{self._committed(commit)}: the Hub answered "
                                    f"the tag request, yet reading its tags back finds {found} "
                                    "(was the answer a proxy's or a portal's page?). "
                                    f"{self._retry(commit)}", commit)

    def _retry(self, commit: str) -> str:
        """How to tag ``commit`` after a tag that failed."""
        return ("Re-run the same publish (main already holds this version: it only tags it), "
                f"or tag it yourself: hf repos tag create {self.plan.repo_id} "
                f"{self.plan.version} --repo-type dataset --revision {commit}")

    def _committed(self, commit: str, tagged: str = "was not") -> str:
        return (f"main was committed as {commit} ({self.what}), but {self.plan.version} "
                f"{tagged} tagged")


_NOTHING = "nothing was committed and the version is not tagged"
_LEFT_OUT_HINT = ("The Hub left the missing files out of the commit although publish sent "
                  "them and no .gitignore could drop them (the commit deletes the repository's "
                  "and the Hub was asked with an empty one): the Hub itself marked them to be "
                  "ignored or lost them. Publish again: it commits what is missing, then tags")
_GITIGNORE_KEPT_HINT = ("main still has a .gitignore although the commit deleted it, and it may "
                        "drop the missing files: delete it on the Hub and publish again")
_OTHER_BYTES_HINT = ("The Hub holds other bytes than the release's under these paths (it may "
                     "have said it held them already): publish again")
_RERUN = ("Re-run the same publish: it only tags main when main already holds exactly this "
          "version, and commits it again otherwise")


def _cause(error: Exception) -> str:
    """What went wrong, for a message: ``explain``, saying so when an answer was not the
    JSON the protocol expects."""
    if failure_kind(error) == MALFORMED_ANSWER and not isinstance(error, HubPublishError):
        return (f"the Hub's answer is not what the protocol expects ({type(error).__name__}: "
                f"{explain(error)})")
    return explain(error)


def _opening(kind: str, what: str) -> str:
    return (f"the Hub refused the upload of {what}" if kind == UPLOAD_REFUSED
            else f"publishing {what} did not complete")


def _kind(error: Exception) -> str:
    """``failure_kind`` of ``error``; an error no Hub answer explains is raised again."""
    kind = failure_kind(error)
    if kind is None:
        raise error
    return kind
