"""Command-line plumbing shared by the entry points: options, their parsing, ``main``.

What lives here: argparse options every pipeline shares (release, query log, linking), the
Flex-Template-friendly flag and alias handling, and the ``main`` wrapper that maps errors to
exit codes. It may import ``transforms`` and ``filters``; nothing below ``pipelines`` imports it.
"""
