"""Command-line plumbing shared by the entry points: options, their parsing, ``main``.

What lives here: the parser, API signature and runner generated from a dataset spec
(``spec_parser``, ``spec_runner``), the release and linking options for hand-built parsers
(``options``, ``linking``), the Flex-Template-friendly flag and alias handling, parsers
that raise ``UsageError`` instead of exiting (``parsers``), keyword arguments as a command
line (``keywords``, for ``pipelines.api``), the ``qa-build`` console script (``console``)
and the ``main`` wrapper that maps errors to exit codes (``entry``). It may import
``transforms`` and ``filters``; it imports the pipeline modules only by name, at run time
(``console``).
"""
