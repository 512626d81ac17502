"""What a previous release's rows say, checked before any work: class labels in range (exit
5, naming file and rows) and the variant its rows were built as (exit 2), whatever its
manifest says."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines import build_jnq
from tests.conftest import PROJECT_ROOT, TEST_RUNNER
from transforms.release.checksums import SHA256SUMS, release_sums
from transforms.release.features import with_class_labels, with_hf_features
from transforms.release.formats import table_bytes
from transforms.release.refresh.previous_rows import scan_previous
from transforms.release.verify import DamagedReleaseError

SAMPLE_LOG = PROJECT_ROOT / "pipelines" / "samples" / "jnq" / "query_log.tsv"
MANIFEST = "dataset_info.json"
LABELLED = with_class_labels(pa.schema([
    ("id", pa.string()), ("kind", pa.int64()),
    ("votes", pa.list_(pa.struct([("answer", pa.int64())])))]),
    {"kind": ("a", "b"), "votes.answer": ("yes", "no")}, {"votes.answer": "none"})


def write_table(directory: Path, name: str, rows: list[dict], schema: pa.Schema) -> None:
    (directory / name).parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=schema)
    (directory / name).write_bytes(table_bytes(table.cast(with_hf_features(schema))))


def test_labels_in_range_give_the_names_the_rows_hold(tmp_path):
    rows = [{"id": "1", "kind": 0, "votes": [{"answer": 1}, {"answer": -1}]},
            {"id": "2", "kind": 0, "votes": None}, {"id": "3", "kind": None, "votes": []}]
    write_table(tmp_path, "train/x.parquet", rows, LABELLED)
    scanned = scan_previous(str(tmp_path), ("train/x.parquet",), LABELLED)
    assert scanned.labels == {"kind": ("a",)}
    assert scanned.names == {"kind": ("a", "b")}
    assert scan_previous(str(tmp_path), ("train/x.parquet",), None).labels == {"kind": ("a",)}


@pytest.mark.parametrize("rows, where", [
    ([{"id": "1", "kind": 0, "votes": []}, {"id": "2", "kind": 2, "votes": []}],
     "class label kind holds ['2'], no label of ['a', 'b'] (indexes -1..1), in 1 row(s): "
     "row 1 (id 2)"),
    ([{"id": "1", "kind": 0, "votes": [{"answer": 0}]},
      {"id": "2", "kind": 1, "votes": [{"answer": 1}, {"answer": -5}, {"answer": 9}]}],
     "class label votes.answer holds ['-5', '9'], no label of ['yes', 'no'] (indexes -1..1), "
     "in 1 row(s): row 1 (id 2)"),
])
def test_a_label_out_of_range_names_the_file_and_rows(tmp_path, rows, where):
    write_table(tmp_path, "train/x.parquet", rows, LABELLED)
    with pytest.raises(DamagedReleaseError, match="x.parquet") as error:
        scan_previous(str(tmp_path), ("train/x.parquet",), LABELLED)
    assert where in str(error.value)


def test_legacy_names_must_be_names_of_the_label(tmp_path):
    legacy = pa.schema([("id", pa.string()), ("kind", pa.string())])
    write_table(tmp_path, "train/x.parquet", [{"id": "1", "kind": "a"}, {"id": "2",
                                                                         "kind": "zzz"}], legacy)
    ours = with_class_labels(legacy.set(1, pa.field("kind", pa.int64())), {"kind": ("a", "b")})
    with pytest.raises(DamagedReleaseError, match=r"holds \['zzz'\].*row 1 \(id 2\)"):
        scan_previous(str(tmp_path), ("train/x.parquet",), ours)


def reseal(version_dir: Path, edit_manifest=None) -> None:
    """The manifest's hashes and ``SHA256SUMS`` recomputed after an edit: it verifies."""
    manifest = json.loads((version_dir / MANIFEST).read_text("utf-8"))
    for name, entry in manifest["files"].items():
        data = (version_dir / name).read_bytes()
        entry.update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    if edit_manifest:
        edit_manifest(manifest)
    written = (json.dumps(manifest, indent=2) + "\n").encode()
    (version_dir / MANIFEST).write_bytes(written)
    (version_dir / SHA256SUMS).write_bytes(release_sums(manifest["files"], MANIFEST, written))


def jnq(root: Path, version: str, *extra: str) -> int:
    return build_jnq.main([TEST_RUNNER, "--input", str(SAMPLE_LOG), "--output", str(root),
                           "--version", version, "--sample-index", *extra])


@pytest.fixture(scope="module")
def jnq_release(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("jnq_previous") / "releases"
    assert jnq(root, "1") == 0
    return root / "jnq" / "1"


def test_a_label_out_of_range_in_the_previous_release_is_exit_5_before_any_work(
        jnq_release, tmp_path, capsys):
    root = tmp_path / "releases"
    shutil.copytree(jnq_release.parent, root / "jnq")
    version = root / "jnq" / "1"
    shard = sorted(version.glob("train/*.parquet"))[0]
    table = pq.read_table(shard)
    variant = table.column("variant").to_pylist()
    variant[3] = 7
    table = table.set_column(table.schema.get_field_index("variant"),
                             table.schema.field("variant"), pa.array(variant, pa.int64()))
    pq.write_table(table, shard)
    reseal(version)
    capsys.readouterr()
    assert jnq(root, "2", "--previous", "auto") == 5
    err = capsys.readouterr().err
    assert f"{shard.relative_to(root)}: class label variant holds ['7']" in err
    assert f"row 3 (id {table.column('id')[3].as_py()})" in err
    assert "Traceback" not in err and "the job failed" not in err
    assert not (root / "jnq" / "2").exists() and not (root / "jnq" / ".staging").exists()


def test_a_jnq_release_renamed_jboolq_is_not_carried_into_jboolq(jnq_release, tmp_path, capsys):
    """The directory, the manifest's dataset and its --variant all say jboolq (resealed):
    its rows still say jnq, so nothing is carried."""
    root = tmp_path / "releases"
    shutil.copytree(jnq_release.parent, root / "jboolq")

    def as_jboolq(manifest: dict) -> None:
        manifest["dataset"] = "jboolq"
        manifest["options"]["variant"] = "jboolq"

    reseal(root / "jboolq" / "1", as_jboolq)
    capsys.readouterr()
    assert jnq(root, "2", "--variant", "jboolq", "--previous", "auto") == 2
    err = capsys.readouterr().err
    assert ("--variant was 'jnq' in its rows (its manifest records 'jboolq'), now 'jboolq'"
            in err)
    assert not (root / "jboolq" / "2").exists()
