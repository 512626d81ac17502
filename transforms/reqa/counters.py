"""The counters of ReQA: what its readers and labeling stages tally and its stats, card and
summary read (``transforms.core.counters``).

Stages: ``input`` (files, lines or rows of the readers), ``examples`` (every input example
ends ``kept``, ``dropped.<reason>`` or ``malformed``), ``paragraphs``, ``answers``,
``candidates``, ``questions``, and ``sentences`` (a batch the splitter could not handle is
dead-lettered there). ``<stage>.dead_lettered`` counts the dead letters of each stage that
dead-letters (``WriteAccounting`` tallies them).
"""

from __future__ import annotations

from transforms.core.counters import Counter, CounterFamily, CounterSet
from transforms.reqa.schema import (
    ANSWER_OFFSET_MISMATCH,
    INVALID_UNICODE,
    MALFORMED_ARTICLE,
    MALFORMED_PARAGRAPH,
)

INPUT = "input"
EXAMPLES = "examples"  # the stage of every input example
PARAGRAPHS = "paragraphs"
ANSWERS = "answers"
CANDIDATES = "candidates"
QUESTIONS = "questions"
SENTENCES = "sentences"
DEAD_LETTERED = "dead_lettered"

# the readers: input files, NQ lines, NLQuAD rows
FILES = Counter(INPUT, "files")
LINES = Counter(INPUT, "lines")  # nq: non-blank lines
ROWS = Counter(INPUT, "rows")  # nlquad: Parquet rows
UNREADABLE_FILES = Counter(INPUT, "unreadable_files")
UNREADABLE = CounterFamily(INPUT, "unreadable")  # unreadable.<reason>
MALFORMED_ARTICLES = Counter(INPUT, f"malformed.{MALFORMED_ARTICLE}")  # squad
INPUT_DEAD_LETTERED = Counter(INPUT, DEAD_LETTERED)

# every input example: read = kept + dropped.<reason> + malformed
READ = Counter(EXAMPLES, "read")
KEPT = Counter(EXAMPLES, "kept")
DROPPED = CounterFamily(EXAMPLES, "dropped")  # dropped.<reason> (transforms.reqa.schema)
MALFORMED = Counter(EXAMPLES, "malformed")
EXAMPLES_DEAD_LETTERED = Counter(EXAMPLES, DEAD_LETTERED)

PARAGRAPHS_READ = Counter(PARAGRAPHS, "read")
PARAGRAPHS_WITHOUT_QUESTIONS = Counter(PARAGRAPHS, "without_questions")  # squad
PARAGRAPHS_WITHOUT_SENTENCES = Counter(PARAGRAPHS, "without_sentences")
MALFORMED_PARAGRAPHS = Counter(PARAGRAPHS, f"malformed.{MALFORMED_PARAGRAPH}")  # squad
PARAGRAPHS_INVALID_UNICODE = Counter(PARAGRAPHS, f"dropped.{INVALID_UNICODE}")  # squad

CROSS_SENTENCE_BOUNDARY = Counter(ANSWERS, "cross_sentence_boundary")
ANSWER_OFFSET_MISMATCHES = Counter(ANSWERS, f"dropped.{ANSWER_OFFSET_MISMATCH}")  # squad

CANDIDATES_EMITTED = Counter(CANDIDATES, "emitted")
CANDIDATES_UNIQUE = Counter(CANDIDATES, "unique")
CANDIDATES_DUPLICATES = Counter(CANDIDATES, "duplicates")

QUESTIONS_UNIQUE = Counter(QUESTIONS, "unique")
QUESTIONS_MERGED = Counter(QUESTIONS, "merged_occurrences")

SENTENCES_DEAD_LETTERED = Counter(SENTENCES, DEAD_LETTERED)

COUNTERS = CounterSet.from_module(globals())
