"""Summary lines every pipeline shares (``transforms.core.summary``), under their old path."""

from transforms.core.summary import (
    DEAD_LETTERED,
    dead_letter_line,
    dead_lettered_total,
    empty_release_warning,
)

__all__ = ["DEAD_LETTERED", "dead_letter_line", "dead_lettered_total", "empty_release_warning"]
