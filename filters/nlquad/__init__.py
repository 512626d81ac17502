"""NLQuAD construction rules (Soleimani, Monz, Worring, EACL 2021).

``qa`` (interrogative sub-headings and their answer paragraphs, with drop reasons), ``dedup``
(which capture of an article, and which of two identical texts, is kept). May import
``filters.bbc`` and ``filters.text``.
"""
