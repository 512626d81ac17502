"""``release publish``: a version to a Hub dataset repo, against a fake Hub on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipelines import release as release_cli
from tests.fakes.hub_server import FakeHub
from tests.transforms.release.toy import run_toy

TOKEN = "hf_test_secret_token"
TO = "hf://datasets/qa-org/toy"


@pytest.fixture
def versions(tmp_path) -> tuple[Path, Path]:
    root = tmp_path / "releases"
    first = Path(run_toy(root, ["a", "b", "c"], "1.0.0")["path"])
    second = Path(run_toy(root, ["a", "b"], "1.1.0")["path"])
    return first, second


@pytest.fixture
def hub(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))  # no token file of the machine
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    with FakeHub(token=TOKEN) as fake:
        monkeypatch.setenv("HF_ENDPOINT", fake.base_url)
        yield fake


def _files(version: Path) -> dict[str, bytes]:
    return {str(p.relative_to(version)): p.read_bytes()
            for p in sorted(version.rglob("*")) if p.is_file()}


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
    assert repo.files("1.0.0") == _files(first)
    assert repo.files("1.1.0") == repo.files("main") == _files(second)
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
