"""Text helpers shared by every dataset; they import no other part of the project.

``splits`` (stable hash of a group key -> split), ``sentences`` (spaCy senter with offsets),
``spacy_models`` (the installed English model, never downloaded), ``bm25`` (bm25s with a
deterministic vocabulary), ``stats`` (word counts, exact percentiles), ``html_decoding``
(archived HTML bytes -> text, reporting the encoding used), ``safe_json`` (JSON with bounded
nesting), ``names`` (user-given names that must be one plain path component), ``terminal``
(untrusted text printed with control characters escaped), ``confusables`` (Unicode TR39
skeletons, for comparing questions that only look alike).
"""
