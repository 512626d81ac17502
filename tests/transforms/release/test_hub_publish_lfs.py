"""``publish_to_hub`` over the fake Hub's LFS path: multipart uploads, a large file of an
extension ``.gitattributes`` does not cover, and the protocol checks the Hub makes."""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from huggingface_hub import constants

from tests.fakes.hub_server import LFS_JSON, FakeHub
from tests.transforms.release.toy import run_toy
from transforms.release.hub_publish import plan_publish, publish_to_hub

TOKEN = "hf_test_secret_token"
TO = "hf://datasets/qa-org/toy"


@pytest.fixture
def toy(tmp_path) -> Path:
    return Path(run_toy(tmp_path / "releases", ["a", "b", "c"], "1.0.0")["path"])


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)


def _files(version: Path) -> dict[str, bytes]:
    return {str(p.relative_to(version)): p.read_bytes()
            for p in sorted(version.rglob("*")) if p.is_file()}


def _call(url: str, body: bytes | None = None, method: str = "POST",
          headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, method=method, headers={
        "Authorization": f"Bearer {TOKEN}", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_a_large_object_goes_up_in_parts(toy, env):
    parquet = "train/train-00000-of-00001.parquet"
    size = (toy / parquet).stat().st_size
    with FakeHub(token=TOKEN, multipart_threshold=size, chunk_size=256) as hub:
        publish_to_hub(plan_publish(str(toy), TO), endpoint=hub.base_url)
        [batch_object] = hub.lfs_batches[0]["objects"]
        assert "multipart" in hub.lfs_batches[0]["transfers"]
        part_puts = [r for r in hub.requests if r.startswith("/__lfs/part/")]
        assert len(part_puts) == -(-size // 256) >= 2
        assert hub.lfs_puts == [batch_object["oid"]] == [
            hashlib.sha256((toy / parquet).read_bytes()).hexdigest()]
        files = hub.repos["qa-org/toy"].files("1.0.0")
        assert files[parquet] == (toy / parquet).read_bytes()


def test_a_large_file_of_another_extension_is_lfs_and_added_to_gitattributes(toy, env):
    with FakeHub(token=TOKEN, regular_limit=500) as hub:  # dataset_info.json is larger
        report = publish_to_hub(plan_publish(str(toy), TO), endpoint=hub.base_url)
        lfs = {p for k, p in hub.commit_items[0] if k == "lfsFile"}
        assert lfs == {name for name, data in _files(toy).items()
                       if name.endswith(".parquet") or len(data) > 500}
        assert "dataset_info.json" in lfs and "README.md" not in lfs
        attributes = hub.repos["qa-org/toy"].files("1.0.0")[".gitattributes"].decode()
        assert "\ndataset_info.json filter=lfs diff=lfs merge=lfs -text\n" in attributes
        assert "*.parquet filter=lfs" in attributes and report["deleted"] == []


def test_the_fake_checks_what_the_hub_checks(toy, env):
    data = (toy / "train" / "train-00000-of-00001.parquet").read_bytes()
    oid = hashlib.sha256(data).hexdigest()
    with FakeHub(token=TOKEN) as hub:
        assert _call(f"{hub.base_url}/api/repos/create", json.dumps(
            {"name": "toy", "organization": "qa-org", "type": "dataset"}).encode(),
            headers={"Content-Type": "application/json"})[0] == 200
        batch_url = f"{hub.base_url}/datasets/qa-org/toy.git/info/lfs/objects/batch"
        batch = json.dumps({"operation": "upload", "transfers": ["basic", "multipart", "xet"],
                            "objects": [{"oid": oid, "size": len(data)}],
                            "hash_algo": "sha256", "ref": {"name": "main"}}).encode()
        lfs_headers = {"Accept": LFS_JSON, "Content-Type": LFS_JSON}
        assert _call(batch_url, batch, headers={"Content-Type": "application/json"})[0] == 406
        status, body = _call(batch_url, batch, headers=lfs_headers)
        answer = json.loads(body)
        assert status == 200 and answer["transfer"] == "basic"  # no xet for this repo
        upload = answer["objects"][0]["actions"]["upload"]["href"]
        assert upload.startswith(hub.storage_url) and "X-Amz-Signature=" in upload
        assert _call(upload.split("?")[0], data, "PUT")[0] == 403  # unsigned
        assert b"BadDigest" in _call(upload, data[::-1], "PUT")[1]
        assert b"IncompleteBody" in _call(upload, data[:-1], "PUT")[1]
        commit_url = f"{hub.base_url}/api/datasets/qa-org/toy/commit/main"
        commit = b"\n".join(json.dumps(line).encode() for line in [
            {"key": "header", "value": {"summary": "x", "description": ""}},
            {"key": "lfsFile", "value": {"path": "x.parquet", "algo": "sha256", "oid": oid,
                                         "size": len(data)}}])
        status, body = _call(commit_url, commit, headers={"Content-Type": "application/x-ndjson"})
        assert status == 400 and b"LFS pointer pointed to a file that does not exist" in body
        assert _call(upload, data, "PUT")[0] == 200 and hub.lfs_puts == [oid]
        verify = answer["objects"][0]["actions"]["verify"]["href"]
        assert _call(verify, json.dumps({"oid": oid, "size": len(data)}).encode())[0] == 200
        again = json.loads(_call(batch_url, batch, headers=lfs_headers)[1])
        assert again["objects"] == [{"oid": oid, "size": len(data)}]  # stored: no actions
        assert _call(commit_url, commit, headers={"Content-Type": "application/x-ndjson"})[0] == 200
        binary = json.dumps({"key": "file", "value": {
            "path": "y.bin2", "encoding": "base64",
            "content": base64.b64encode(data).decode()}}).encode()
        status, body = _call(commit_url, commit.split(b"\n")[0] + b"\n" + binary)
        assert status == 400 and b"binary files" in body
