"""One combined element of a PCollection, read as a side input without a second one.

``beam.CombineGlobally`` (with its default, which an empty input needs) passes its result to
a last step as a side input: the runner then keeps it in its state cache and measures its
deep size object by object, for a refresh's sets and summaries of thousands of entries a
cost of its own, paid again wherever the result is read as a side input. ``combine_one``
adds a seed element (``None``, which the combine skips) instead, so that the input is never
empty and ``without_defaults`` always gives exactly one element: ``combine_fn``'s result
over the elements, the same as ``CombineGlobally(combine_fn)`` gives. Every ``combine_one`` of
a pipeline flattens in the same seed (``seed_of``: ``Impulse`` and a ``Map``, made once), since
each transform of a job costs its construction, translation and bundle set-up (about 15 ms
of CPU on the DirectRunner, for any number of elements).
"""

from __future__ import annotations

from typing import Any

import apache_beam as beam


class _SkipSeed(beam.CombineFn):
    """``combine_fn`` over the elements that are not the seed (``None``)."""

    def __init__(self, combine_fn: beam.CombineFn):
        self.combine_fn = combine_fn

    def create_accumulator(self) -> Any:
        return self.combine_fn.create_accumulator()

    def add_input(self, accumulator: Any, element: Any) -> Any:
        if element is None:
            return accumulator
        return self.combine_fn.add_input(accumulator, element)

    def merge_accumulators(self, accumulators) -> Any:
        return self.combine_fn.merge_accumulators(accumulators)

    def extract_output(self, accumulator: Any) -> Any:
        return self.combine_fn.extract_output(accumulator)


SEED_ATTRIBUTE = "_refresh_combine_seed"  # where seed_of keeps a pipeline's seed
SEED_LABEL = "CombineOneSeed"


def _none(_: bytes) -> None:
    return None


def seed_of(pipeline: beam.Pipeline):
    """The PCollection of one ``None`` that every ``combine_one`` of ``pipeline`` flattens
    in, made on first use."""
    seed = getattr(pipeline, SEED_ATTRIBUTE, None)
    if seed is None:
        seed = (pipeline
                | f"{SEED_LABEL}Impulse" >> beam.Impulse()
                | SEED_LABEL >> beam.Map(_none))
        setattr(pipeline, SEED_ATTRIBUTE, seed)
    return seed


def combine_one(pcoll, combine_fn: beam.CombineFn, label: str):
    """The one-element PCollection of ``combine_fn`` over ``pcoll`` (whose elements are
    never ``None``), an empty input's result included (see the module docstring)."""
    seed = seed_of(pcoll.pipeline)
    return ((pcoll, seed)
            | f"{label}Seeded" >> beam.Flatten()
            | label >> beam.CombineGlobally(_SkipSeed(combine_fn)).without_defaults())
