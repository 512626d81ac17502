"""Benchmark ``annotate export|import --previous`` against a full export and import. Not a test.

    python benchmarks/bench_annotation_previous.py --scale 0.02   # 6,000 + 160 examples

Synthesizes an NQ release as ``bench_annotation.py`` does (300,000 x ``--scale`` 1-way train
and 8,000 x ``--scale`` 5-way dev examples) with its votes and imports it: the previous
annotated release. A second version then adds ``--new`` (5%) new train examples and changes
the question of ``--changed`` (1%) of the others, and records the first as ``previous``. Each
measured in its own process (DirectRunner): exporting the second version in full and with
``--previous`` (only the new and changed examples), and importing it in full (every example's
votes) and with ``--previous`` (the new and changed examples' votes; the rest carried).
Prints seconds, peak RSS and the ratios.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench_annotation import _example, _vote, synthesize
from child_process import peak_rss_mb, report, run_child

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def second_version(first: Path, votes: Path, train: int, dev: int, new: int,
                   changed: int) -> tuple[Path, Path, Path, int]:
    """``(release, every vote, the new and changed examples' votes, examples to judge)``."""
    release = first.parent / "bench2"
    shutil.copytree(first, release)
    source = first / "nq_original" / "train" / "nq-train-00.jsonl.gz"
    target = release / "nq_original" / "train" / "nq-train-00.jsonl.gz"
    judged: set[str] = set()
    with gzip.open(source, "rt", encoding="utf-8") as handle, gzip.open(
            target, "wt", encoding="utf-8", compresslevel=1) as out:
        for number, line in enumerate(handle):
            if number % (train // max(changed, 1)) == 0 and len(judged) < changed:
                example = json.loads(line)
                example["question_text"] += " today"
                line = json.dumps(example) + "\n"
                judged.add(str(number))
            out.write(line)
        for number in range(train + dev, train + dev + new):
            out.write(json.dumps(_example(number)) + "\n")
            judged.add(str(number))
    every, needed = release.parent.parent / "votes2.jsonl", release.parent.parent / "needed.jsonl"
    shutil.copyfile(votes, every)
    with open(every, "a", encoding="utf-8") as out:
        for number in range(train + dev, train + dev + new):
            out.write(json.dumps(_vote(number, 0)) + "\n")
    with open(every, encoding="utf-8") as handle, open(needed, "w", encoding="utf-8") as out:
        out.writelines(line for line in handle if json.loads(line)["example_id"] in judged)
    from transforms.release.manifest import file_manifest

    data = (first / "dataset_info.json").read_bytes()
    (release / "dataset_info.json").unlink()
    (release / "dataset_info.json").write_text(json.dumps(
        {"dataset": "nq", "version": "bench2", "splits": ["train", "dev"],
         "files": file_manifest(str(release)),
         "previous": {"dataset": "nq", "version": "bench",
                      "fingerprint": hashlib.sha256(data).hexdigest()[:16]}}), encoding="utf-8")
    return release, every, needed, len(judged)


def child(mode: str, release: str, votes: str, previous: str, out: str) -> dict:
    from pipelines.annotate import run

    extra = ["--previous", previous] if mode.endswith("previous") else []
    started = time.perf_counter()
    if mode.startswith("export"):
        result = run(["export", "--release", release, "--tool", "votes", "--out", out, *extra])
        done = sum(result["manifest"]["tasks"].values())
    else:
        result = run(["import", "--dataset", "nq", "--input", release, "--votes", votes,
                      "--ways", "train=1,dev=5", "--output", out, "--version", "2.0.0",
                      "--runner=DirectRunner", *extra])
        done = result["stats"]["counts"]["examples"]["annotated"]
    return {"seconds": time.perf_counter() - started, "items": done, "rss": peak_rss_mb()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.02)
    parser.add_argument("--new", type=float, default=0.05, help="share of new examples")
    parser.add_argument("--changed", type=float, default=0.01, help="share changed")
    for name in ("child", "release", "votes", "previous", "out"):
        parser.add_argument(f"--{name}", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        report(child(args.child, args.release, args.votes, args.previous, args.out))
        return
    from pipelines.annotate import run

    train, dev = int(300_000 * args.scale), int(8_000 * args.scale)
    with tempfile.TemporaryDirectory(prefix="bench_annotation_previous_") as tmp:
        root = Path(tmp)
        first, votes, _ = synthesize(root, train, dev)
        previous = run(["import", "--dataset", "nq", "--input", str(first), "--votes",
                        str(votes), "--ways", "train=1,dev=5", "--output", str(root / "annotated"),
                        "--runner=DirectRunner"])["path"]
        release, every, needed, judged = second_version(
            first, votes, train, dev, int(train * args.new), int(train * args.changed))
        results = {}
        for mode, mode_votes in (("export", every), ("export_previous", every),
                                 ("import", every), ("import_previous", needed)):
            command = [sys.executable, __file__, "--child", mode, "--release", str(release),
                       "--votes", str(mode_votes), "--previous", previous,
                       "--out", str(root / f"out-{mode}")]
            results[mode] = run_child(command, mode, ROOT)
    print(f"annotate --previous: {train + dev} examples judged before, "
          f"{judged} new or changed in the next version")
    for mode, result in results.items():
        print(f"  {mode:16s} {result['seconds']:7.1f} s  {result['items']:7d} "
              f"{'tasks' if mode.startswith('export') else 'examples'}  "
              f"peak RSS {result['rss']:5.0f} MB")
    for kind in ("export", "import"):
        ratio = results[f"{kind}_previous"]["seconds"] / results[kind]["seconds"]
        print(f"  {kind} --previous / full: {ratio:.2f}x time")


if __name__ == "__main__":
    main()
