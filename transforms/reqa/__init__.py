"""ReQA sentence-retrieval sets (Ahmad et al. 2019): Beam stages, schema, card and baselines.

May import ``transforms.sources`` (``compressed``: damaged-stream detection),
``transforms.core``, ``transforms.release``, ``transforms.metrics``, ``transforms.clients`` and
``filters``; never ``pipelines``. Modules, lower ones first:

* ``schema``: sources, drop reasons, the questions/candidates schemas and field docs, stable ids.
* ``counters``: the ``Counter`` constants the stages tally and the stats, card and summary read.
* ``tasks``: ReqaTask, its paragraphs and questions, Drop and the dropped-example outputs.
* ``input_files``: path and lines of a reader's input file (or a test's ``(path, text)`` pair).
* ``nq_source``: NQ original-format examples -> tasks (first annotation, ``<P>``, one short).
* ``squad_source``: SQuAD v1.1 JSON paragraphs -> tasks (answer offsets checked).
* ``nlquad_source``: NLQuAD release rows -> one task per article (paragraphs split on ``\\n``).
* ``labeling``: sentence splitting, correct-sentence labels, question merge, candidate dedup.
* ``refresh``: ``--previous``: the unit (a paragraph), its reused sentences, rows carried by
  content (``CarrySameRows``).
* ``build``: ``ReadReqaTasks`` and ``BuildReqa``, the composites (and the paper's choices).
* ``card``: ``stats.json`` content and the ``README.md`` data card.
* ``baselines``: the card's BM25 baselines over sentences and over paragraphs.
* ``inputs``: what ``--input`` names (sample, glob or release) and the file glob it reads.
* ``spec``: the dataset declared once: options, plan, the composite transform, summary.
"""
