"""The category lexicon of NQ heuristics 4 and 5: Hearst-pattern stages and the data card.

``stages`` (corpus -> paragraphs -> Hearst matches -> lexicon rows), ``card``. May import the
layers below the dataset stages and ``filters``.
"""
