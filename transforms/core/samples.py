"""Paths of the bundled sample inputs (package data under ``pipelines/samples``)."""

from __future__ import annotations

from importlib import resources


def sample_path(*parts: str) -> str:
    """The path of a bundled sample file or directory: ``sample_path("nq", "query_log.tsv")``."""
    return str(resources.files("pipelines").joinpath("samples", *parts))
