"""NLQuAD (Soleimani, Monz, Worring, EACL 2021): Beam stages, release schema and data card.

``stages`` (parse, deduplicate, remove templates, extract QA pairs), ``schema`` (one row per
question), ``counters`` (what the stages tally and the card reads), ``card`` (stats, Table 2
reference, untrained baselines, the data card), ``spec`` (options, plan, the composite
transform and the summary: the dataset declared once). May import
``transforms.sources``, ``transforms.release``, ``transforms.core``, ``transforms.clients``,
``transforms.metrics`` and ``filters``.
"""
