"""Entry points: ``python -m pipelines.<name>``, one thin module per dataset or tool.

Each module declares its options, composes stages from ``transforms`` and hands the release
to ``transforms.release``; ``cli`` holds the options they share. The top layer: it may import
``transforms`` and ``filters``, and nothing imports it.
"""

import logging


class _HideBeamGcpImportNotice(logging.Filter):
    """Beam logs "apitools not found" on import when the optional GCP extras are absent."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "apitools not found" not in record.getMessage()


logging.getLogger().addFilter(_HideBeamGcpImportNotice())
