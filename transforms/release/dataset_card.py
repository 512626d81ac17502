"""The dataset directory's own card: ``<root>/<dataset>/README.md``, a pointer to ``LATEST``.

``datasets.load_dataset(<root>/<dataset>)`` reads the ``configs`` of the directory's
``README.md``; without one it loads every Parquet file below the directory, every version
mixed (and the tables of one version mixed, a ``CastError``). So the dataset directory holds
a short card of its own: the dataset name, the version ``LATEST`` names, a link to that
version's card, and the ``configs`` of that card (every config and split, and the
``description`` a release from simulated votes gives each, also as ``dataset_info``, so
``Dataset.info.description`` says so), each data file path prefixed with ``<version>/``.
``commit.write_latest`` writes it just before ``LATEST``, by the same rules (one object
write, or a temporary file renamed over it).

The version's card is input: it is read without following links, at most
``MAX_CARD_BYTES``, and its ``configs`` must be a list of configs whose data files are
relative paths inside the version (no ``..``, not absolute, no URL); anything else is a
``DatasetCardError`` naming the versions. A version whose card has no YAML ``configs`` (not a
card this toolkit's builders write) gets no dataset card (``card_for`` returns ``None``).
"""

from __future__ import annotations

import os
import stat
from typing import Any

import yaml
from apache_beam.io.filesystems import FileSystems

from transforms.release.storage import is_local, list_files, read_bytes
from transforms.release.target import DATASET_CARD, MANIFEST, STAGING

MAX_CARD_BYTES = 16 << 20
MAX_DATA_FILES = 10_000  # configs x splits x paths: an alias-expanded YAML stops here
MAX_DESCRIPTION = 4_000  # characters of a config's description copied to the pointer card


class DatasetCardError(RuntimeError):
    """``LATEST``'s version has a card whose ``configs`` cannot be pointed at."""


def card_for(dataset_dir: str, dataset: str, version: str) -> bytes | None:
    """The dataset directory's card for ``version`` (its configs, paths prefixed with
    ``<version>/``), ``None`` when the version's card has no ``configs``."""
    version_dir = FileSystems.join(dataset_dir, version)
    try:
        text = _read_card(FileSystems.join(version_dir, DATASET_CARD))
        configs = _configs(text)
    except (OSError, ValueError, yaml.YAMLError) as error:
        raise DatasetCardError(
            f"{dataset_dir}: the dataset directory cannot load LATEST's version {version!r}: "
            f"its card {version}/{DATASET_CARD} is unusable ({error}); versions in the "
            f"directory: {', '.join(versions_in(dataset_dir)) or 'none'}; load a version "
            "directory instead") from None
    if configs is None:
        return None
    return pointer_card(dataset, version, configs).encode("utf-8")


def pointer_card(dataset: str, version: str, configs: list[dict[str, Any]]) -> str:
    """The card text: ``configs`` with every path below ``version/``, and a short body."""
    moved = [{**config, "data_files": [{"split": entry["split"],
                                        "path": _below(version, entry["path"])}
                                       for entry in config["data_files"]]}
             for config in configs]
    described = [{"config_name": config["config_name"], "description": config["description"]}
                 for config in configs if config.get("description")]
    header = yaml.safe_dump({"configs": moved, **({"dataset_info": described} if described
                                                  else {})},
                            sort_keys=False, allow_unicode=True, width=100)
    names = ", ".join(f"`{config['config_name']}`" for config in configs)
    return (f"---\n{header}---\n# {dataset}\n\n"
            f"This directory holds the published versions of `{dataset}`. `LATEST` names "
            f"**{version}**, and `datasets.load_dataset` on this directory loads it: the "
            f"configs above ({names}) are those of its card, [{version}/README.md]"
            f"({version}/README.md) (license, sources, fields, statistics), with their paths "
            f"below `{version}/`.\n\nThis card is rewritten with `LATEST` whenever a version "
            "is published; load a version directory to pin a version.\n")


def _below(version: str, path: str | list[str]) -> str | list[str]:
    return f"{version}/{path}" if isinstance(path, str) else [f"{version}/{p}" for p in path]


def _read_card(path: str) -> str:
    """The version card's text: a regular file read without following links (locally), at
    most ``MAX_CARD_BYTES``; a missing card is an empty text."""
    if not is_local(path):
        return (read_bytes(path, MAX_CARD_BYTES) if FileSystems.exists(path)
                else b"").decode("utf-8")
    try:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        return ""
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise ValueError("not a regular file")
        data = handle.read(MAX_CARD_BYTES + 1)
    if len(data) > MAX_CARD_BYTES:
        raise ValueError(f"larger than {MAX_CARD_BYTES} bytes")
    return data.decode("utf-8")


def _configs(text: str) -> list[dict[str, Any]] | None:
    """The ``configs`` of a card's YAML front matter, checked; ``None`` without any."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---\n", 3)
    if end < 0:
        raise ValueError("its YAML front matter does not end")
    header = yaml.safe_load(text[4:end + 1])
    configs = header.get("configs") if isinstance(header, dict) else None
    if not configs:
        return None
    if not isinstance(configs, list) or not all(isinstance(c, dict) for c in configs):
        raise ValueError("'configs' is not a list of configs")
    checked, count = [], 0
    for config in configs:
        files = config.get("data_files")
        if not isinstance(config.get("config_name"), str) or not isinstance(files, list):
            raise ValueError("a config without a name or a list of data files")
        count += len(files)
        if count > MAX_DATA_FILES:
            raise ValueError(f"more than {MAX_DATA_FILES} data files")
        for entry in files:
            _check_entry(entry)
        checked.append({key: config[key]
                        for key in ("config_name", "data_files", "default", "description")
                        if key in config and (key != "default" or config[key] is True)
                        and (key != "description" or _is_description(config[key]))})
    return checked


def _is_description(value: Any) -> bool:
    """A config ``description`` the pointer card copies: a string of at most
    ``MAX_DESCRIPTION`` characters (a release from simulated votes says so in it)."""
    return isinstance(value, str) and 0 < len(value) <= MAX_DESCRIPTION


def _check_entry(entry: Any) -> None:
    if not isinstance(entry, dict) or not isinstance(entry.get("split"), str):
        raise ValueError("a data file entry without a split")
    paths = entry.get("path")
    paths = [paths] if isinstance(paths, str) else paths
    if not isinstance(paths, list) or not paths or len(paths) > MAX_DATA_FILES:
        raise ValueError(f"split {entry['split']!r} has no path")
    for path in paths:
        if not (isinstance(path, str) and path and not path.startswith(("/", "\\"))
                and "://" not in path and "\\" not in path
                and ".." not in path.split("/")):
            raise ValueError(f"data file path {path!r} is not a relative path inside the "
                             "version")


def versions_in(dataset_dir: str) -> list[str]:
    """The version directories of a dataset directory (those holding a manifest), sorted."""
    if is_local(dataset_dir):
        try:
            names = os.listdir(dataset_dir)
        except OSError:
            return []
        return sorted(n for n in names if not n.startswith(".")
                      and not os.path.islink(os.path.join(dataset_dir, n))
                      and os.path.isfile(os.path.join(dataset_dir, n, MANIFEST)))
    return sorted({name.split("/")[0] for name in list_files(dataset_dir)
                   if name.endswith(f"/{MANIFEST}") and name.count("/") == 1
                   and name.split("/")[0] != STAGING})
