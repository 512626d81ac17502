"""``combine_one``: one combined element, an empty input's included, every combine of a
pipeline flattening in the same seed."""

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from tests.conftest import TEST_RUNNER
from transforms.release.refresh.combine_one import SEED_LABEL, combine_one


def test_each_combine_gives_one_element_from_one_shared_seed():
    pipeline = beam.Pipeline(argv=[TEST_RUNNER])
    numbers = pipeline | "Numbers" >> beam.Create([3, 4, 5])
    nothing = pipeline | "Nothing" >> beam.Create([]).with_output_types(int)
    total = combine_one(numbers, beam.combiners.CountCombineFn(), "Total")
    empty = combine_one(nothing, beam.combiners.CountCombineFn(), "Empty")
    assert_that(total, equal_to([3]), label="CheckTotal")
    assert_that(empty, equal_to([0]), label="CheckEmpty")
    labels = []

    class Labels(beam.pipeline.PipelineVisitor):
        def visit_transform(self, node):
            labels.append(node.full_label)

    pipeline.visit(Labels())
    assert len([label for label in labels if SEED_LABEL in label]) == 2  # Impulse and Map
    pipeline.run().wait_until_finish()
