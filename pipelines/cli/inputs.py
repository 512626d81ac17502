"""Input checks before the job (``transforms.core.inputs``), under their old import path."""

from transforms.core.inputs import matching_files, require_inputs

__all__ = ["matching_files", "require_inputs"]
