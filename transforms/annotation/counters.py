"""The counters of an annotation import: what its stages tally (``votes``: reading and using
the workers' votes; ``examples``: the release's rows and what became of them) and its card,
``stats.json`` and summary read.

Every vote read (a non-blank line of a votes file, an annotation or unusable task of a Label
Studio export) ends as exactly one of ``votes.used``, ``votes.pending``, ``votes.not_needed``,
``votes.duplicate``, ``votes.superseded``, ``votes.gold`` (judgments of a ``--gold`` control
question, which is not published: ``examples.gold``) or ``votes.refused.<reason>``
(dead-lettered), so ``votes.read`` is their sum. A JNQ
or JBoolQ question ends as one of ``OUTCOME`` (``filters.annotation.jnq.OUTCOMES``); an NQ
example as ``examples.annotated`` or ``examples.pending``.

With ``--previous`` (``annotations``: what became of the previous annotated release's judged
items), every item it judged is counted once: ``annotations.carried`` (its annotations and
votes copied, ``annotations.carried_votes`` votes) or ``annotations.invalidated.<reason>``
(``question_changed``, ``document_changed``, ``candidates_changed``, ``paragraphs_changed``,
``split_changed``, ``content_unknown``, ``removed``: not in this release, or
``recompute_all``). A carried item also counts its outcome (``examples.annotated``,
``examples.kept``, ...), as if it had been aggregated again.

With ``import --curtailed`` (``judgments``, ``judgment_counts``): ``judgments.used`` and
``judgments.full_overlap`` (what a fixed overlap would have spent on the same stages), and
per gold label ``judgments.label.<stage>.<label>`` and ``judgments.decisions.<stage>.<label>``.
"""

from __future__ import annotations

from filters.annotation.jnq import OUTCOMES
from transforms.core.counters import Counter, CounterFamily, CounterSet
from transforms.core.summary import DEAD_LETTERED

VOTES = "votes"
EXAMPLES = "examples"
ANNOTATIONS = "annotations"
JUDGMENTS = "judgments"

# votes: ReadVotes, then the imports' use of each vote
VOTE_FILES = Counter(VOTES, "files")
LABEL_STUDIO_EXPORTS = Counter(VOTES, "label_studio_exports")
VOTES_READ = Counter(VOTES, "read")
SIMULATED = Counter(VOTES, "simulated")  # votes marked "simulated": true (annotate simulate)
REFUSED = CounterFamily(VOTES, "refused")  # refused.<reason>, dead-lettered
UNREADABLE = CounterFamily(VOTES, "unreadable")  # unreadable.<reason>, dead-lettered
#: a REFUSED reason: the vote's Label Studio task (its page and candidate map, or question and
#: paragraph) is not what the export writes for the item it names (``label_studio.task_map``)
TASK_PAGE_MISMATCH = "task_page_mismatch"
DUPLICATE = Counter(VOTES, "duplicate")
SUPERSEDED = Counter(VOTES, "superseded")
NOT_NEEDED = Counter(VOTES, "not_needed")
VOTES_PENDING = Counter(VOTES, "pending")
USED = Counter(VOTES, "used")
VOTES_GOLD = Counter(VOTES, "gold")  # judgments of gold (control) questions (--gold)
VOTES_DEAD_LETTERED = Counter(VOTES, DEAD_LETTERED)

# examples: the release's rows (ReadReleaseExamples), then the NQ or JNQ import
EXAMPLES_READ = Counter(EXAMPLES, "read")
DUPLICATE_QUESTION = Counter(EXAMPLES, "duplicate_question")
#: the outcome of a JNQ / JBoolQ question (``examples.kept``, ``examples.pending``, ...)
OUTCOME = {outcome: Counter(EXAMPLES, outcome) for outcome in OUTCOMES}
PENDING = OUTCOME["pending"]  # NQ's too: an example with fewer annotators than required
PENDING_AT = CounterFamily(EXAMPLES, "pending")  # pending.<JNQ stage>
KEPT_NO_LONG_ANSWER = Counter(EXAMPLES, "kept.no_long_answer")
KEPT_LONG_ANSWER_ONLY = Counter(EXAMPLES, "kept.long_answer_only")
ANNOTATED = Counter(EXAMPLES, "annotated")
ANNOTATED_NO_LONG_ANSWER = Counter(EXAMPLES, "annotated.no_long_answer")
GOLD_QUESTIONS = Counter(EXAMPLES, "gold")  # a --gold control question: not published
WAYS = CounterFamily(EXAMPLES, "ways")  # ways.<annotators of an annotated NQ example>

# judgments (import --curtailed): what adaptive rounds spent against a fixed overlap
JUDGMENTS_USED = Counter(JUDGMENTS, "used")  # judgments the decided items' decisions read
JUDGMENTS_FULL_OVERLAP = Counter(JUDGMENTS, "full_overlap")  # a fixed overlap's, same stages
JUDGMENTS_PER_LABEL = CounterFamily(JUDGMENTS, "label")  # label.<stage>.<label>: judgments
DECISIONS_PER_LABEL = CounterFamily(JUDGMENTS, "decisions")  # decisions.<stage>.<label>

# annotations: carrying the previous annotated release's judgments (--previous)
PREVIOUS = Counter(ANNOTATIONS, "previous")  # items the previous annotated release judged
CARRIED = Counter(ANNOTATIONS, "carried")
CARRIED_VOTES = Counter(ANNOTATIONS, "carried_votes")  # its votes-table rows copied
INVALIDATED = CounterFamily(ANNOTATIONS, "invalidated")  # invalidated.<reason>
REMOVED = "removed"  # an INVALIDATED reason: the item is not in the release annotated
RECOMPUTE_ALL = "recompute_all"  # an INVALIDATED reason: --recompute-all carries nothing
SPLIT_CHANGED = "split_changed"  # an INVALIDATED reason: the example moved to another split

COUNTERS = CounterSet.of(CounterSet.from_module(globals()), *OUTCOME.values())
