"""Japanese NQ and JBoolQ rules (Uematsu et al.): question patterns and paragraph candidates.

``rules`` (the entry point: fugashi words through ``JaAnalyzer`` and ``QuestionFilter``, which
checks the string before tagging; it re-exports the rest of the question rules), ``normalize``
(NFKC and the JNQ §3.1 checks on the string: length, space, word minimum), ``tokens``
(``JaToken`` and the word count), ``patterns`` (patterns 1-3 of JNQ §3.1, the JBoolQ rule),
``prechecks`` (whether a pattern can still match, from the string), ``paragraphs`` (body
paragraphs and the first + 4 most snippet-similar candidates of JNQ §3.3), ``lexicon`` (reads
unidic-lite's compiled dictionary, to derive and test the spellings the string checks look for).
Imports ``filters.text`` only.
"""
