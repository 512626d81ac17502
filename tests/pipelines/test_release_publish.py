"""``release publish``: a version to a Hub dataset repo, against a fake Hub on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from huggingface_hub import constants

from pipelines import release as release_cli
from tests.pipelines.hub_setup import TO, TOKEN


def _files(version: Path) -> dict[str, bytes]:
    return {str(p.relative_to(version)): p.read_bytes()
            for p in sorted(version.rglob("*")) if p.is_file()}


def _published(repo, revision: str) -> dict[str, bytes]:
    """A revision's files but the ``.gitattributes`` the Hub created the repo with."""
    return {k: v for k, v in repo.files(revision).items() if k != ".gitattributes"}


def test_each_version_is_a_tagged_commit_with_exactly_its_files(versions, hub, capsys):
    first, second = versions
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0
    out = capsys.readouterr()
    assert "sent toy 1.0.0 to hf://datasets/qa-org/toy (branch main, tag 1.0.0)" in out.out
    assert TOKEN not in out.out + out.err
    repo = hub.repos["qa-org/toy"]
    stale = {**repo.files("main"), "old/only_in_main.txt": b"x"}  # e.g. uploaded by hand
    repo.commits["f" * 40], repo.branches["main"] = stale, "f" * 40
    assert release_cli.main(["publish", str(second.parent), "--to", TO, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["revision"] == "1.1.0" and report["commit"]
    assert report["deleted"] == ["old/only_in_main.txt"]
    assert set(repo.tags) == {"1.0.0", "1.1.0"}
    assert _published(repo, "1.0.0") == _files(first)
    assert _published(repo, "1.1.0") == _published(repo, "main") == _files(second)
    assert "SHA256SUMS" in repo.files("1.1.0") and "README.md" in repo.files("1.1.0")
    commits = [p for p in hub.posts if "/commit/" in p]
    assert commits == ["/api/datasets/qa-org/toy/commit/main"] * 2


def test_a_published_version_is_refused_before_any_upload(versions, hub, capsys):
    first, _ = versions
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0
    posts = len(hub.posts)
    assert release_cli.main(["publish", str(first), "--to", TO]) == 3
    assert "already has revision 1.0.0" in capsys.readouterr().err
    assert [p for p in hub.posts[posts:] if "/commit/" in p or "/preupload/" in p] == []


def test_dry_run_lists_what_would_be_sent_without_network(versions, monkeypatch, capsys):
    first, _ = versions
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens: no request
    assert release_cli.main(["publish", str(first), "--to", TO, "--dry-run", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["repo"] == TO and report["revision"] == "1.0.0" and report["dry_run"]
    assert {f["path"]: f["bytes"] for f in report["files"]} == {
        name: len(data) for name, data in _files(first).items()}
    assert release_cli.main(["publish", str(first), "--to", TO, "--dry-run"]) == 0
    assert "would send toy 1.0.0" in capsys.readouterr().out


@pytest.mark.parametrize("to", ["hf://models/org/x", "hf://datasets/org", "gs://b/x",
                                "hf://datasets/org/../x", "hf://datasets/org/x/y",
                                "hf://datasets/-org/x"])
def test_a_bad_target_or_dir_exits_2_before_any_work(versions, tmp_path, hub, capsys, to):
    first, _ = versions
    assert release_cli.main(["publish", str(first), "--to", to]) == 2
    assert "hf://datasets/ORG/NAME" in capsys.readouterr().err
    assert release_cli.main(["publish", str(tmp_path / "nothing"), "--to", TO]) == 2
    assert "not a release" in capsys.readouterr().err
    assert hub.requests == []


def test_a_damaged_release_is_not_sent(versions, hub, capsys):
    first, _ = versions
    (first / "stats.json").write_text("{}", encoding="utf-8")
    assert release_cli.main(["publish", str(first), "--to", TO]) == 5
    assert hub.requests == []


def test_a_wrong_token_is_a_hub_error_and_never_printed(versions, hub, monkeypatch, capsys):
    first, _ = versions
    monkeypatch.setenv("HF_TOKEN", "hf_wrong_secret")
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = capsys.readouterr().err
    assert "the Hub refused the upload" in err and "hf_wrong_secret" not in err


# --- the LFS path: a sample release's Parquet and .gz files go through the Git LFS batch API


@pytest.fixture(scope="module")
def nq_versions(sample_build, tmp_path_factory) -> tuple[Path, Path]:
    """The NQ sample built twice from the same inputs, as 1.0.0 and 1.1.0 (same Parquet bytes,
    other manifest and stats): 1.0.0 is a copy of the shared build."""
    from pipelines import build_nq
    from tests.conftest import TEST_RUNNER
    from tests.sample_releases import copy_release

    root = tmp_path_factory.mktemp("nq_publish")
    first = copy_release(sample_build("nq")[1], root)
    second = Path(build_nq.run([TEST_RUNNER, "--keep-rejected", "--output", str(root),
                                "--version", "1.1.0"])["path"])
    return first, second


def _sums(version: Path) -> dict[str, str]:
    lines = (version / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    return {name.lstrip("*"): digest for digest, name in (line.split(None, 1) for line in lines)}


def _lfs_names(version: Path) -> set[str]:
    return {name for name in _files(version) if name.endswith((".parquet", ".gz"))}


def _download(hub, revision: str, name: str, tmp_path: Path) -> bytes:
    from huggingface_hub import hf_hub_download

    path = hf_hub_download("qa-org/toy", name, repo_type="dataset", revision=revision,
                           endpoint=hub.base_url, cache_dir=tmp_path / "cache")
    return Path(path).read_bytes()


def test_a_sample_release_sends_parquet_and_gz_through_lfs(nq_versions, hub, tmp_path, capsys):
    first, _ = nq_versions
    files, sums, lfs = _files(first), _sums(first), _lfs_names(first)
    assert len([n for n in lfs if n.endswith(".parquet")]) >= 5 and len(lfs) < len(files)
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0
    assert "sent nq 1.0.0" in capsys.readouterr().out
    # one batch request naming every LFS file's sha256, one PUT of each, no other
    [batch] = hub.lfs_batches
    assert batch["operation"] == "upload" and batch["ref"] == {"name": "main"}
    assert {o["oid"]: o["size"] for o in batch["objects"]} == {
        sums[n]: len(files[n]) for n in lfs}
    assert sorted(hub.lfs_puts) == sorted(sums[n] for n in lfs)
    # the commit: README, JSON, SHA256SUMS and .jsonl inline, Parquet and .gz as LFS pointers
    [items] = hub.commit_items
    assert {p for k, p in items if k == "lfsFile"} == lfs
    assert {p for k, p in items if k == "file"} == set(files) - lfs
    repo = hub.repos["qa-org/toy"]
    assert _published(repo, "1.0.0") == files
    tree = {e["path"]: e for e in json.loads(_get(hub, "/api/datasets/qa-org/toy/tree/1.0.0"))}
    assert {p for p, e in tree.items() if "lfs" in e} == lfs
    assert all(tree[n]["lfs"]["oid"] == sums[n] for n in lfs)
    # read back with huggingface_hub from the tag: LFS files come from storage by content
    for name in sorted(files):
        data = _download(hub, "1.0.0", name, tmp_path)
        assert data == files[name], name
        if name in sums:
            assert hashlib.sha256(data).hexdigest() == sums[name], name


def test_republishing_another_version_uploads_no_stored_object_again(nq_versions, hub, tmp_path):
    first, second = nq_versions
    assert {_sums(second)[n] for n in _lfs_names(second)} <= set(_sums(first).values())
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0
    puts = list(hub.lfs_puts)
    assert release_cli.main(["publish", str(second), "--to", TO]) == 0
    assert hub.lfs_puts == puts  # the batch answered every object "present": no PUT
    repo = hub.repos["qa-org/toy"]
    assert set(repo.tags) == {"1.0.0", "1.1.0"} and repo.tags["1.0.0"] != repo.tags["1.1.0"]
    assert _published(repo, "1.0.0") == _files(first)
    assert _published(repo, "1.1.0") == _published(repo, "main") == _files(second)
    name = sorted(_lfs_names(second))[0]
    assert _download(hub, "1.1.0", name, tmp_path) == (second / name).read_bytes()


def _get(hub, path: str) -> bytes:
    import urllib.request

    request = urllib.request.Request(hub.base_url + path,
                                     headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read()


def _nothing_published(hub, capsys) -> str:
    out = capsys.readouterr()
    repo = hub.repos["qa-org/toy"]
    assert repo.tags == {} and len(repo.commits) == 1  # the repo's creation only
    assert "sent " not in out.out and TOKEN not in out.out + out.err
    return out.err


def test_an_upload_the_storage_rejects_fails_publish(nq_versions, hub, capsys):
    first, _ = nq_versions
    hub.fail("/__lfs/upload/", ["corrupt"])  # bytes damaged on the way: sha256 mismatch
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = _nothing_published(hub, capsys)
    assert "the Hub refused the upload" in err and "nothing was committed" in err
    assert "BadDigest" in err or "400" in err
    assert "X-Amz-Signature" not in err  # a signed storage URL is a credential
    assert hub.commit_items == []


@pytest.mark.parametrize("status, body, expected", [
    (403, {"error": "You don't have the rights to push to qa-org/toy"}, "rights to push"),
    (422, {"message": "Invalid request"}, "422"),
])
def test_an_lfs_batch_error_fails_publish(nq_versions, hub, capsys, status, body, expected):
    first, _ = nq_versions
    hub.fail("/info/lfs/objects/batch", [(status, body)])
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = _nothing_published(hub, capsys)
    assert "the Hub refused the upload" in err and expected in err
    assert hub.lfs_puts == [] and hub.commit_items == []


def test_a_per_object_batch_error_fails_publish(nq_versions, hub, capsys):
    first, _ = nq_versions
    sums = _sums(first)
    oid = sums[sorted(_lfs_names(first))[0]]
    hub.fail("/info/lfs/objects/batch", [(200, {"transfer": "basic", "objects": [
        {"oid": oid, "size": 1, "error": {"code": 422, "message": "Object too large"}}]})])
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = _nothing_published(hub, capsys)
    assert "Object too large" in err and "nothing was committed" in err


def test_a_transient_batch_error_is_retried(nq_versions, hub, capsys):
    first, _ = nq_versions
    hub.fail("/info/lfs/objects/batch", [(503, {"error": "Service Unavailable"})])
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0
    assert len(hub.lfs_batches) == 1 and len(hub.lfs_puts) == len(_lfs_names(first))


def test_dry_run_of_a_sample_release_sends_nothing(nq_versions, hub, capsys):
    first, _ = nq_versions
    assert release_cli.main(["publish", str(first), "--to", TO, "--dry-run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dry_run"]
    assert hub.requests == []


def test_an_xet_upload_the_hub_refuses_fails_publish_cleanly(nq_versions, hub, monkeypatch,
                                                             capsys):
    """With hf_xet (huggingface_hub 2.x then never asks the LFS batch API) the fake, which
    has no xet storage, refuses the xet token: publish fails with a message, not a traceback."""
    pytest.importorskip("hf_xet")
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", False)
    first, _ = nq_versions
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = _nothing_published(hub, capsys)
    assert "nothing was committed" in err and "xet" in err


def test_every_hub_request_is_bounded_by_the_publish_timeouts(versions, hub, monkeypatch):
    """huggingface_hub's client has no timeout of its own: publish gives it ours for the
    run and puts the default back after."""
    from huggingface_hub.utils import get_session

    from transforms.release import hub_publish

    seen = []
    create_commit = hub_publish._publish

    def spy(*args, **kwargs):
        seen.append(get_session().timeout)
        return create_commit(*args, **kwargs)

    monkeypatch.setattr(hub_publish, "_publish", spy)
    first, _ = versions
    assert release_cli.main(["publish", str(first), "--to", TO, "--http-connect-timeout", "3",
                             "--http-read-timeout", "7"]) == 0
    assert (seen[0].connect, seen[0].read) == (3, 7)
    assert get_session().timeout.read is None  # the default client again


def test_a_hub_that_stops_answering_fails_the_publish(versions, hub, capsys):
    """A Hub that accepts the connection and never answers: the read timeout ends the
    request instead of a publish that waits for ever (the fake stalls far longer than the
    test allows; retried requests stall again)."""
    hub.hang_seconds = 3600
    hub.fail("/refs", ["hang"] * 10)
    first, _ = versions
    code = release_cli.main(["publish", str(first), "--to", TO, "--http-read-timeout", "0.2"])
    err = capsys.readouterr().err
    assert code == 1 and "timed out" in err.lower(), err
    assert hub.repos["qa-org/toy"].tags == {}


def test_no_signed_storage_url_reaches_a_log(versions, hub, caplog):
    """The HTTP client logs each request's URL at INFO; the storage URLs are signed, so a
    publish keeps them out of the log even when the log shows INFO."""
    import logging

    caplog.set_level(logging.INFO)
    first, _ = versions
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0
    assert hub.lfs_puts and "Signature" not in caplog.text
    assert logging.getLogger("httpx2").level == logging.NOTSET  # as it was before
