"""The project's C extensions (everything else is in pyproject.toml).

``filters.nq._ptb`` is the PTB-like word splitter of :mod:`filters.nq.text_tokens`,
``filters.nq._walker`` the HTML walker of :mod:`filters.nq.tokens`, and
``transforms.clients._bm25_topk`` the exact top-k search of
:mod:`transforms.clients.bm25_index`: each in C with the same output as the Python code, which
stays the reference (tests compare the two).
"""

from setuptools import Extension, setup

_FLAGS = ["-O2", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter"]

setup(ext_modules=[
    Extension("filters.nq._ptb", ["filters/nq/_ptb.c"], extra_compile_args=_FLAGS),
    Extension("filters.nq._walker", ["filters/nq/_walker.c"], extra_compile_args=_FLAGS),
    Extension("transforms.clients._bm25_topk", ["transforms/clients/_bm25_topk.c"],
              extra_compile_args=_FLAGS),
])
