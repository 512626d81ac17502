"""The columns of an annotated JNQ / JBoolQ release (``transforms.annotation.jnq_import``
writes them): in a module of their own so that the readers of a release (``release browse``'s
JNQ renderer) need not import the import's Beam stages."""

from __future__ import annotations

import pyarrow as pa

from transforms.jnq.labels import ANNOTATED_LABELS, ANNOTATED_UNLABELED
from transforms.jnq.schema import EXAMPLE_SCHEMA
from transforms.release.features import label_codes, with_class_labels

ANNOTATION = pa.struct([
    pa.field("paragraph_id", pa.int32()), pa.field("label", pa.int64()),
    pa.field("yes_votes", pa.int32()), pa.field("votes", pa.int32()),
    pa.field("short_answer_type", pa.int64()),
    pa.field("span_start", pa.int32()), pa.field("span_end", pa.int32()),
    pa.field("span_text", pa.string()), pa.field("yes_no_answer", pa.int64()),
])
ANNOTATED_SCHEMA = with_class_labels(pa.schema([
    *EXAMPLE_SCHEMA,
    pa.field("is_yes_no_question", pa.bool_(), nullable=False),
    pa.field("num_annotators", pa.int32(), nullable=False),
    pa.field("annotations", pa.list_(ANNOTATION), nullable=False),
    pa.field("gold_paragraph_ids", pa.list_(pa.int32()), nullable=False),
], metadata={"dataset": "jnq_annotated"}), ANNOTATED_LABELS, ANNOTATED_UNLABELED)
_CODES = label_codes(ANNOTATED_LABELS, ANNOTATED_UNLABELED)
ANNOTATED_FIELD_DOCS = {
    "is_yes_no_question": "workers judged it a yes/no question (JNQ §3.4: >= 7 of 10)",
    "num_annotators": "workers who judged whether it is a good question (JNQ §3.2)",
    "annotations": "one per candidate paragraph: label EXIST (>= 7 of 10 say it holds enough "
                   "information), AMBIGUOUS (4-6) or NONE; on EXIST paragraphs the short "
                   "answer: a majority span (characters of the paragraph text) or YES/NO "
                   "(>= 8 of 10). Class labels: label "
                   f"{_CODES['annotations.label']}; short_answer_type "
                   f"{_CODES['annotations.short_answer_type']}; yes_no_answer "
                   f"{_CODES['annotations.yes_no_answer']}",
    "gold_paragraph_ids": "the EXIST paragraphs: the long answers (evaluate jnq reads them)",
}
