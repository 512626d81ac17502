"""Dataset pipelines: one module per dataset (options and composition)."""

import logging


class _HideBeamGcpImportNotice(logging.Filter):
    """Beam logs "apitools not found" on import when the optional GCP extras are absent."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "apitools not found" not in record.getMessage()


logging.getLogger().addFilter(_HideBeamGcpImportNotice())
