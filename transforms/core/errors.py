"""Errors a pipeline raises before any work: a command line it cannot run, an input that
matches nothing. ``pipelines.cli.errors`` maps them to exit codes 2 and 4."""

from __future__ import annotations


class UsageError(Exception):
    """A command line the pipeline cannot run: reported in one line, exit code 2."""


class NoInputError(Exception):
    """An input option matches no file: reported before the job starts, exit code 4."""
