"""Natural Questions rules (Kwiatkowski et al. 2019).

Question selection: ``queries`` (normalization, users within a window, cheap checks),
``heuristics`` (rules 1-5 of §3.1), ``category_lexicon`` and ``hearst`` (the categorical nouns
of rules 4 and 5). Documents: ``search_hits`` (the top Wikipedia page among the top 5),
``tokens`` (NQ document tokens from HTML), ``text_tokens`` (the PTB-like word tokenizer it
uses), ``candidates`` (long-answer candidates). Imports ``filters.text`` only.
"""
