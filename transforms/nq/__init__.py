"""Natural Questions (Kwiatkowski et al. 2019): Beam stages, schemas and data cards.

Stage 1, question selection: ``questions`` (users within a window, heuristics). Stage 2:
``backends`` (search and page clients built in ``DoFn.setup()``), ``linking`` (search, top-5
Wikipedia page, page fetch, tokens and candidates), ``examples`` (NQ original and HuggingFace
layouts). Release: ``schema``, ``card``, ``publish`` (empty splits, the dev baseline). The
dataset is declared once in ``spec`` (options, plan, the composite transform, summary), its
counters in ``counters`` and the shared linking options in ``linking_options``. May
import ``transforms.sources``, ``transforms.release``, ``transforms.core``,
``transforms.clients``, ``transforms.metrics`` and ``filters``.
"""
