"""The linking options on a plain argparse parser, for code that builds its own parser.

build_nq and build_jnq declare them once as ``transforms.nq.linking_options.LinkingOptions``
(their parsers are generated from their specs); ``add_linking_arguments`` adds the same
options, with the same help, defaults and value parsers, to any parser, and
``backend_options`` gives the workers' ``BackendOptions`` of the parsed values.
"""

from __future__ import annotations

import argparse

from pipelines.cli.options import add_option
from transforms.core.options import CLI, dash_name, option_fields
from transforms.nq.backends import BackendOptions
from transforms.nq.linking_options import (
    LINKING_GROUP,
    LinkingOptions,
    ResolvedLinking,
    default_pages,
    lang_option,
)
from transforms.nq.linking_options import backend_options as _backend_options

__all__ = ["add_linking_arguments", "backend_options"]


def add_linking_arguments(parser: argparse.ArgumentParser, lang: str):
    """Search, page and HTTP options (``LinkingOptions``) as an argument group, ``--lang``
    defaulting to ``lang``; returns the group."""
    linking = parser.add_argument_group(LINKING_GROUP)
    lang_field = lang_option(lang)
    for field, info in option_fields(LinkingOptions):
        default = field.default
        if field.name == "lang":
            default, info = lang_field.default, lang_field.metadata[CLI]
        add_option(linking, dash_name(field.name), info, default, info.help)
    return linking


def backend_options(args: argparse.Namespace) -> BackendOptions:
    """BackendOptions from parsed linking arguments (``--pages`` defaulting from
    ``--search``, ``--index-dir`` as given)."""
    resolved = ResolvedLinking(args.pages or default_pages(args.search), args.index_dir)
    return _backend_options(args, resolved)
