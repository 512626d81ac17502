"""A refresh built on a re-sealed previous release: its rows were edited and every checksum
recomputed, so it verifies, but a carried row breaks the release's invariants (issue 35,
B5). The refresh exits 5 naming the rows, and publishes nothing."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.build_nlquad import main, run
from pipelines.release import main as release_main
from tests.conftest import TEST_RUNNER
from transforms.release.checksums import SHA256SUMS, release_sums
from transforms.release.invariants import DUPLICATE_ID, GROUP_IN_SPLITS, SPAN_MISMATCH
from transforms.release.target import MANIFEST


def reseal(version_dir: Path) -> None:
    """Recompute what a verifier checks, as a forger would: each listed file's sha256, size
    and rows, the rows per split, then ``SHA256SUMS`` over the new manifest."""
    manifest = json.loads((version_dir / MANIFEST).read_text(encoding="utf-8"))
    for name, entry in manifest["files"].items():
        data = (version_dir / name).read_bytes()
        entry.update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
        if name.endswith(".parquet"):
            entry["rows"] = pq.ParquetFile(version_dir / name).metadata.num_rows
    for split in manifest["rows_per_split"]:
        manifest["rows_per_split"][split] = sum(
            pq.ParquetFile(path).metadata.num_rows for path in (version_dir / split).glob(
                "*.parquet"))
    content = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8")
    (version_dir / MANIFEST).write_bytes(content)
    (version_dir / SHA256SUMS).write_bytes(release_sums(manifest["files"], MANIFEST, content))


def split_file(version_dir: Path, split: str) -> Path:
    (path,) = (version_dir / split).glob("*.parquet")
    return path


def write_rows(path: Path, rows: list[dict], schema: pa.Schema) -> None:
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


def forge(version_dir: Path) -> dict[str, str]:
    """Edit the train and test rows of an NLQuAD release: one row takes another's id, one
    question of a train article moves to test, one answer no longer matches its context.
    Returns the ids involved."""
    train_path, test_path = split_file(version_dir, "train"), split_file(version_dir, "test")
    train, test = pq.read_table(train_path), pq.read_table(test_path)
    rows, moved_to = train.to_pylist(), test.to_pylist()
    by_document: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        by_document.setdefault(row["document_id"], []).append(index)
    article = next(indexes for indexes in by_document.values() if len(indexes) >= 2)
    moved = rows.pop(article[-1])  # its article keeps a question in train
    moved_to.append(moved)
    duplicate, original = rows[-1], rows[0]
    duplicate["id"] = original["id"]
    edited = rows[1]
    edited["answer_text"] = edited["answer_text"] + " (edited)"
    write_rows(train_path, rows, train.schema)
    write_rows(test_path, moved_to, test.schema)
    reseal(version_dir)
    return {DUPLICATE_ID: original["id"], GROUP_IN_SPLITS: moved["document_id"],
            SPAN_MISMATCH: edited["id"]}


def test_a_refresh_of_a_resealed_release_exits_5_naming_the_rows(tmp_path, capsys):
    root = tmp_path / "r"
    first = Path(run([TEST_RUNNER, "--output", str(root), "--version", "1"])["path"])
    named = forge(first)
    assert release_main(["verify", str(first)]) == 0  # the forgery verifies
    capsys.readouterr()
    code = main([TEST_RUNNER, "--output", str(root), "--version", "2",
                 "--previous", str(first)])
    error = capsys.readouterr().err
    assert code == 5, error
    for reason, value in named.items():
        assert reason in error and value in error, (reason, value, error)
    assert "nothing was published" in error and "build without --previous" in error
    assert not (root / "nlquad" / "2").exists()
    assert (root / "nlquad" / "LATEST").read_text(encoding="utf-8").strip() == "1"
    staging = root / "nlquad" / ".staging"
    assert not staging.exists() or not any(staging.iterdir())
