"""Japanese NQ and JBoolQ rules (Uematsu et al.): question patterns and paragraph candidates.

``rules`` (fugashi words, patterns 1-3 of JNQ §3.1, the JBoolQ rule), ``paragraphs`` (body
paragraphs and the first + 4 most snippet-similar candidates of JNQ §3.3). Imports
``filters.text`` only.
"""
