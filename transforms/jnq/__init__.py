"""Japanese NQ and JBoolQ (Uematsu et al.): Beam stages, schemas and data card.

``stages`` (Japanese question selection with fugashi, snippet-relevant paragraph candidates),
``schema``, ``card``, ``counters``; the dataset is declared once in ``spec``. Search, pages
and the top-5 rule are NQ's stages (``transforms.nq.linking``) with ``lang="ja"``, so this
package may import ``transforms.nq`` as well as the layers below the dataset stages.
"""
