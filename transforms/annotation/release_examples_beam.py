"""The Beam stage that reads the examples of the release being annotated
(``release_examples``: what it reads, and why NQ examples are read as views)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import apache_beam as beam

from transforms.annotation.content import content_digest
from transforms.annotation.counters import EXAMPLES_READ
from transforms.annotation.label_studio.task_map import TASK_MAPS, nq_task_digests
from transforms.annotation.release_examples import DamagedReleaseError, iter_lines, nq_view
from transforms.core.accounting import SIDE_OUTPUTS, tally
from transforms.core.files import FileSystems
from transforms.jnq.labels import as_names
from transforms.release import RAW
from transforms.release.formats import read_parquet
from transforms.sources.compressed import CompressionDamage


class _ReadSplitFile(beam.DoFn):
    def __init__(self, base: str, digest: bool = False, task_maps: bool = False):
        self.base = base
        self.digest = digest
        self.task_maps = task_maps

    def process(self, element: tuple[str, str, int, int]) -> Iterator[Any]:
        split, path, _, _ = element
        if path.endswith(".parquet"):
            with FileSystems.open(path, compression_type=RAW) as handle:
                table = read_parquet(handle)
            for row in table.to_pylist():
                yield tally(EXAMPLES_READ)
                yield str(row["id"]), (split, as_names(row))
            return
        try:
            for line in iter_lines(path):
                example = json.loads(line)
                yield tally(EXAMPLES_READ)
                view = nq_view(example)
                if self.digest:
                    view["content"] = content_digest("nq", example)
                if self.task_maps:
                    view[TASK_MAPS] = nq_task_digests(example)
                yield str(example["example_id"]), (split, view)
        except (CompressionDamage, ValueError, KeyError, IndexError) as error:
            raise DamagedReleaseError(f"{path} is damaged or not NQ's original format "
                                      f"({type(error).__name__}: {error}); nothing is "
                                      "annotated from a damaged release") from error


class ReadReleaseExamples(beam.PTransform):
    """``(id, (split, example))`` from ``(split, path, index, count)`` files: NQ views
    (``nq_view``) or JNQ rows (class labels as names, ``transforms.jnq.labels``).
    ``digest``: an NQ view also holds its example's ``content`` digest
    (``content.content_digest``, for ``--previous``). ``task_maps``: it also holds the
    digests of the Label Studio tasks export writes for it
    (``label_studio.task_map.nq_task_digests``, to check the tasks of a Label Studio export
    against; rendering the page costs about twice reading the example, so only when an
    export is among the votes)."""

    def __init__(self, files: list[tuple[str, str, int, int]], base: str, digest: bool = False,
                 task_maps: bool = False):
        super().__init__()
        self.files = files
        self.base = base
        self.digest = digest
        self.task_maps = task_maps

    def expand(self, pbegin):
        return (pbegin
                | "ExampleFiles" >> beam.Create(self.files)
                | "ReadExamples" >> beam.ParDo(_ReadSplitFile(self.base, self.digest,
                                                              self.task_maps))
                .with_outputs(*SIDE_OUTPUTS, main="main"))
