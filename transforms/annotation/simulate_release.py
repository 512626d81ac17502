"""Simulated votes for a whole release: ``annotate simulate`` writes them as votes JSON lines.

Every vote is marked ``"simulated": true`` so the import counts them and the annotated
release's card says "simulated annotations". The file is written atomically (a temporary
file renamed into place) and never overwrites.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from transforms.annotation.export import read_examples
from transforms.annotation.manifest import ReleaseRef, base_dataset
from transforms.annotation.simulate import WorkerPool, simulate_jnq_votes, simulate_nq_votes


def write_simulated_votes(release: ReleaseRef, splits: list[str], ways: dict[str, int],
                          pool: WorkerPool, out: str) -> dict[str, int]:
    """Simulate ``ways[split]`` workers on every example of ``splits``; returns counts."""
    base = base_dataset(release)
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    items = votes = 0
    with open(partial, "w", encoding="utf-8") as handle:
        for split in splits:
            for example in read_examples(release, split):
                if base == "nq":
                    simulated = simulate_nq_votes(example, ways[split], pool, release.fingerprint)
                else:
                    simulated = simulate_jnq_votes(example, ways[split], pool, base,
                                                   release.fingerprint)
                items += 1
                for vote in simulated:
                    handle.write(json.dumps({**vote, "simulated": True}, ensure_ascii=False,
                                            sort_keys=True) + "\n")
                    votes += 1
    if target.exists():
        partial.unlink()
        raise FileExistsError(f"{out} appeared while simulating; not overwritten")
    os.replace(partial, target)
    return {"items": items, "votes": votes}
