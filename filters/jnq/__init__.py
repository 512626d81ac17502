"""Japanese NQ and JBoolQ rules (Uematsu et al.): question patterns and paragraph candidates.

``rules`` (fugashi words, patterns 1-3 of JNQ §3.1, the JBoolQ rule, and ``QuestionFilter``,
which checks the string before tagging), ``paragraphs`` (body paragraphs and the first + 4 most
snippet-similar candidates of JNQ §3.3), ``lexicon`` (reads unidic-lite's compiled dictionary, to
derive and test the spellings the string checks look for). Imports
``filters.text`` only.
"""
