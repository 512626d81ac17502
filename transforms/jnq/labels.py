"""The enumerations of JNQ / JBoolQ tables, stored as Hugging Face class labels.

Each is an int64 column whose names are in the Parquet footer and the card's features, so
``datasets`` loads it as a ``ClassLabel``; pyarrow and DuckDB read the index. ``-1`` is "no
label" (``datasets``' convention, and NQ's ``yes_no_answer``: -1 NONE, 0 NO, 1 YES):

* ``variant``: 0 jnq, 1 jboolq;
* ``annotations.label`` (a candidate paragraph's judgment, JNQ §3.3): 0 EXIST, 1 AMBIGUOUS,
  2 NONE;
* ``annotations.short_answer_type``: 0 none, 1 span, 2 yes_no;
* ``annotations.yes_no_answer``: 0 NO, 1 YES, -1 NONE (no majority, or not asked); the
  ``boolq`` config's ``answer`` was the same class label before it became ``google/boolq``'s
  ``bool`` (``transforms.jnq.training_tables``): ``BOOLQ_LABELS`` still decodes such rows;
* ``stage`` of the ``votes`` table: 0 good_question, 1 yes_no_question, 2 long_answer,
  3 yes_no_answer, 4 span.

Code handles names: the writer encodes them (``transforms.release.features``) and
``as_names`` decodes a row read from a release, of either encoding (releases written before
these columns were class labels hold the names as strings).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from filters.annotation.jnq import AMBIGUOUS, EXIST, NONE
from filters.annotation.votes import JNQ_STAGES
from transforms.release.features import decode_row, with_class_labels

VARIANT_NAMES = ("jnq", "jboolq")
PARAGRAPH_LABELS = (EXIST, AMBIGUOUS, NONE)
SHORT_ANSWER_TYPES = ("none", "span", "yes_no")
YES_NO_NAMES = ("NO", "YES")  # -1: NONE, as NQ's yes_no_answer
NO_YES_NO = "NONE"
STAGES = tuple(JNQ_STAGES)

EXAMPLE_LABELS = {"variant": VARIANT_NAMES}
ANNOTATED_LABELS = {**EXAMPLE_LABELS, "annotations.label": PARAGRAPH_LABELS,
                    "annotations.short_answer_type": SHORT_ANSWER_TYPES,
                    "annotations.yes_no_answer": YES_NO_NAMES}
ANNOTATED_UNLABELED = {"annotations.yes_no_answer": NO_YES_NO}
BOOLQ_LABELS = {"answer": YES_NO_NAMES}  # the boolq config's answer of older releases
BOOLQ_UNLABELED = {"answer": NO_YES_NO}
VOTE_LABELS = {"stage": STAGES}

# every JNQ / JBoolQ table's labels at once: what ``as_names`` decodes
_ALL = with_class_labels(pa.schema([]), {**ANNOTATED_LABELS, **BOOLQ_LABELS, **VOTE_LABELS},
                         {**ANNOTATED_UNLABELED, **BOOLQ_UNLABELED})


def as_names(row: dict[str, Any]) -> dict[str, Any]:
    """A JNQ / JBoolQ row (examples, annotated, ``boolq`` or ``votes`` table) with its class
    labels as names, whether the release stored them as indexes or, before, as strings."""
    return decode_row(row, _ALL)
