"""Simulated votes for a whole release: ``annotate simulate`` writes them as votes JSON lines.

Every vote is marked ``"simulated": true`` so the import counts them and the annotated
release's card says "simulated annotations". With ``truth``, the hidden truth the workers
were drawn from is written beside them, one line per item (``simulate_truth``). Each file is
written atomically (a temporary file renamed into place) and never overwrites.
"""

from __future__ import annotations

import json
import os
from contextlib import ExitStack
from pathlib import Path

from transforms.annotation.export import read_examples
from transforms.annotation.manifest import ReleaseRef, base_dataset
from transforms.annotation.simulate import WorkerPool, simulate_jnq_votes, simulate_nq_votes
from transforms.annotation.simulate_truth import jnq_truth_record, nq_truth_record, truth_line
from transforms.core.interrupt import point_of_no_return


def _partial(out: str) -> tuple[Path, Path]:
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    return target, target.with_name(f".{target.name}.partial")


def write_simulated_votes(release: ReleaseRef, splits: list[str], ways: dict[str, int],
                          pool: WorkerPool, out: str,
                          truth: str | None = None) -> dict[str, int]:
    """Simulate ``ways[split]`` workers on every example of ``splits`` (and write the hidden
    truth to ``truth``); returns counts."""
    base = base_dataset(release)
    files = [_partial(out)] + ([_partial(truth)] if truth is not None else [])
    items = votes = 0
    with ExitStack() as stack:
        handles = [stack.enter_context(open(partial, "w", encoding="utf-8"))
                   for _, partial in files]
        for split in splits:
            for example in read_examples(release, split):
                if base == "nq":
                    simulated = simulate_nq_votes(example, ways[split], pool, release.fingerprint)
                else:
                    simulated = simulate_jnq_votes(example, ways[split], pool, base,
                                                   release.fingerprint)
                items += 1
                for vote in simulated:
                    handles[0].write(json.dumps({**vote, "simulated": True}, ensure_ascii=False,
                                                sort_keys=True) + "\n")
                    votes += 1
                if truth is not None:
                    record = (nq_truth_record(example, pool, split) if base == "nq" else
                              jnq_truth_record(example, pool, base, split))
                    handles[1].write(truth_line(record, release.fingerprint))
    appeared = [str(target) for target, _ in files if target.exists()]
    if appeared:
        for _, partial in files:
            partial.unlink()
        raise FileExistsError(f"{', '.join(appeared)} appeared while simulating; not "
                              "overwritten")
    with point_of_no_return(", ".join(str(target) for target, _ in files)):
        for target, partial in files:
            os.replace(partial, target)
    return {"items": items, "votes": votes}
