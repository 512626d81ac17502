"""The toolkit from Python: build, check and load releases with keyword arguments.

    from pipelines.api import build_nlquad, load_release
    result = build_nlquad(source="html", input="pages/*.html", output="releases",
                          runner="FnApiRunner")
    train = load_release(result["path"], split="train")      # a pyarrow.Table, verified first

Each ``build_*`` runs the pipeline ``python -m pipelines.build_*`` runs and returns what its
``run`` returns: ``{"manifest", "stats", "path"}``. Keywords are the command line's options
with underscores (``split_ratios``, ``export_squad=True``, ``from_year``; see ``keywords``);
other keywords are Beam pipeline options (``runner``, ``direct_num_workers``, ...); ``None``
keeps the default. Errors are the command line's, as exceptions, never ``SystemExit``: an
unknown keyword or a bad value raises ``UsageError`` with the message the command line prints
(exit code 2 there), before any work; ``NoInputError`` (4), ``ReleaseExistsError`` (3),
``EmptyReleaseError`` (4), ``DamagedReleaseError`` (5), ``InvalidReleaseName`` and
``InvalidReleaseRoot`` (2) keep their classes.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import inspect
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
from apache_beam.io.filesystems import FileSystems

from pipelines.cli.entry import quiet_loggers
from pipelines.cli.errors import NoInputError, UsageError
from pipelines.cli.keywords import keyword_argv, keyword_help, subcommand_parser
from pipelines.cli.parsers import raise_usage_errors
from pipelines.cli.spec_parser import api_signature, build_parser
from pipelines.cli.spec_runner import run_spec
from transforms import registry
from transforms.core.spec import DatasetSpec
from transforms.release import (
    MANIFEST,
    RAW,
    DamagedReleaseError,
    EmptyReleaseError,
    InvalidReleaseName,
    InvalidReleaseRoot,
    NotAReleaseError,
    ReleaseExistsError,
    require_intact,
    resolve_release,
)
from transforms.release import list_releases as _list_releases
from transforms.release import verify_release as _verify_release
from transforms.release.formats import read_parquet
from transforms.release.manifest import ManifestError, read_manifest
from transforms.release.simulated import warn_if_simulated
from transforms.release.tables import (
    SPLIT_NAMES,
    Table,
    main_config,
    parquet_directories,
    release_tables,
    table_name,
)

__all__ = [
    "DamagedReleaseError", "EmptyReleaseError", "InvalidReleaseName", "InvalidReleaseRoot",
    "NoInputError", "NotAReleaseError", "ReleaseExistsError", "UsageError", "annotate",
    "annotate_next", "browse", "build",
    "build_categories", "build_jnq", "build_nlquad", "build_nq", "build_reqa",
    "build_search_index", "diff", "evaluate", "keywords", "leakage", "list_releases",
    "load_release", "verify_release",
]

OUR_SPLIT_NAMES = {hub: ours for ours, hub in SPLIT_NAMES.items()}  # validation -> dev


def _module(name: str) -> Any:
    return importlib.import_module(f"pipelines.{name}")


def _no_exit(run: Callable[[list[str]], dict[str, Any]], argv: list[str]) -> dict[str, Any]:
    """``run(argv)``, with a ``SystemExit`` some check still raises as a ``UsageError``.
    bm25s's debug log is quieted, as on the command line (Beam's log level is left alone)."""
    quiet_loggers(("bm25s",))
    try:
        return run(argv)
    except SystemExit as stop:
        raise UsageError(str(stop.code)) from None


def build(dataset: str | DatasetSpec | Any, /, **options: Any) -> dict[str, Any]:
    """Build a dataset: ``build("nq", min_users=5)``, ``build(SPEC, ...)`` for a spec that is
    not registered (a dataset of your own), or ``build(NqOptions(min_users=5), runner=...)``
    with a spec's typed options dataclass (an IDE completes its fields); other keywords are
    Beam pipeline options. Returns manifest, stats and path."""
    if isinstance(dataset, DatasetSpec):
        spec = dataset
    elif isinstance(dataset, str):
        try:
            spec = registry.spec(dataset.removeprefix("build_").replace("_", "-"))
        except KeyError:
            close = difflib.get_close_matches(dataset, registry.names(), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UsageError(f"build(): unknown dataset {dataset!r}{hint}") from None
    else:
        spec = registry.by_options(type(dataset))
        own = {field.name: getattr(dataset, field.name) for field in dataclasses.fields(dataset)
               if getattr(dataset, field.name) != field.default}  # the rest: the parser's
        clash = sorted(set(own) & set(options))
        if clash:
            raise UsageError(f"build({spec.name!r}): {', '.join(clash)} given twice (in the "
                             "options and as keywords)")
        options = {**own, **options}  # checked by the parser, as on the command line
    return _no_exit(lambda argv: run_spec(spec, argv),
                    keyword_argv(build_parser(spec), options, f"{spec.module}()"))


class _Builder:
    """``build_<dataset>(**options)``: ``build`` for one registered dataset. Its signature
    (``help()``, ``inspect.signature``, Jupyter completion) is generated from the spec's
    options when first asked for, so importing this module imports no dataset's stages."""

    def __init__(self, module: str):
        self.module = self.__name__ = self.__qualname__ = module

    @property
    def spec(self) -> DatasetSpec:
        return registry.by_module(self.module)

    @property
    def __signature__(self) -> inspect.Signature:
        return api_signature(self.spec)

    @property
    def __doc__(self) -> str:  # type: ignore[override]
        spec = self.spec
        return (f"``{spec.command}`` with keywords ({spec.about}); returns manifest, stats "
                "and path. Keywords are the options with underscores; others are Beam "
                "pipeline options.")

    def __call__(self, **options: Any) -> dict[str, Any]:
        return build(self.spec, **options)

    def __repr__(self) -> str:
        return f"<pipelines.api.{self.module}>"


build_nlquad = _Builder("build_nlquad")
build_nq = _Builder("build_nq")
build_jnq = _Builder("build_jnq")
build_reqa = _Builder("build_reqa")
build_search_index = _Builder("build_search_index")
build_categories = _Builder("build_categories")


def annotate(command: str, **options: Any) -> dict[str, Any]:
    """``python -m pipelines.annotate <command>`` (``export``, ``simulate``, ``next`` or
    ``import``) with keywords, e.g. ``annotate("import", dataset="nq", input=[release],
    votes=[path])``; Beam options only for ``import``."""
    module = _module("annotate")
    parser = subcommand_parser(module.build_parser(), command, "annotate")
    argv = keyword_argv(parser, options, f"annotate({command!r})", beam=command == "import")
    return _no_exit(module.run, [command, *argv])


def annotate_next(**options: Any) -> dict[str, Any]:
    """The next adaptive round (``annotate next``): ``annotate_next(release=path,
    votes=[glob], out=directory)``; the result's ``manifest`` holds ``open_items`` and
    ``judgments_requested`` (0 when every item is decided). ``stop="confident",
    confidence=0.99`` stops where a worker model is that sure (``--stop confident``).
    ``gold=path, gold_rate=0.05`` mixes gold items into the round (``--gold``,
    ``--gold-rate``)."""
    return annotate("next", **options)


def evaluate(task: str, **options: Any) -> dict[str, Any]:
    """``python -m pipelines.evaluate <task>`` (``nq``, ``nlquad``, ``reqa``, ``jnq``) with
    keywords ``gold``, ``predictions``, ...; returns the scores it prints. A gold release
    is verified first unless ``no_verify=True`` (``DamagedReleaseError``); unreadable gold or
    predictions raise ``pipelines.evaluate.EvaluationError``."""
    module = _module("evaluate")
    parser = raise_usage_errors(module.build_parser())
    argv = keyword_argv(parser, options, f"evaluate({task!r})", beam=False)
    if str(task).startswith("-"):
        raise UsageError(f"evaluate(): {task!r} is not a task")
    args = parser.parse_args([str(task), *argv])
    if args.threshold is not None and args.task != "nq":
        raise UsageError("--threshold applies to nq only")
    args.gold = module.resolve_latest(args.gold)
    if (Path(args.gold) / MANIFEST).is_file() and not args.no_verify:
        require_intact(args.gold)
    return module.EVALUATORS[args.task](args)


def keywords(function: str, command: str | None = None) -> dict[str, str]:
    """The keywords of ``function`` (``"build_nlquad"``, ..., ``"annotate"`` with its
    ``command``, ``"evaluate"``) with their help and defaults; Beam options not listed."""
    name = function.removeprefix("pipelines.")
    known = [*(spec.module for spec in registry.specs()), "annotate", "evaluate"]
    if name not in known:
        close = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UsageError(f"no pipeline function {function!r}{hint}")
    parser = _module(name).build_parser()
    if name == "annotate":
        parser = subcommand_parser(parser, command or "", "annotate")
    return keyword_help(parser)


def verify_release(path: str | os.PathLike[str], *, deep: bool = True) -> dict[str, Any]:
    """Check a release (a version directory, or a dataset directory with ``LATEST``) against
    its manifest, as ``release verify --json`` reports it: ``ok`` and the ``problems``
    (``deep=False``: sizes and Parquet footers only, no hashing). ``NotAReleaseError`` for a
    path that is no release."""
    return _verify_release(resolve_release(os.fspath(path)), deep=deep).to_dict()


def list_releases(root: str | os.PathLike[str], *, deep: bool = False) -> list[dict[str, Any]]:
    """The dataset versions under a release root, as ``release list --json`` shows them:
    status (complete, damaged, staging, missing), LATEST, creation time, rows per split."""
    return _list_releases(os.fspath(root), deep=deep)


def _call_release_command(name: str, *args: Any, **options: Any) -> dict[str, Any]:
    """``pipelines.release.<name>(*args, **options)``; keywords it does not take raise
    ``UsageError`` (with the closest one) instead of ``TypeError``."""
    command = getattr(_module("release"), name)
    parameters = list(inspect.signature(command).parameters)
    try:
        inspect.signature(command).bind(*args, **options)
    except TypeError as error:
        hints = "".join(f" (did you mean {close[0]!r} for {key!r}?)" for key in options
                        if key not in parameters
                        and (close := difflib.get_close_matches(key, parameters, n=1)))
        raise UsageError(f"{name}(): {error}{hints}") from None
    return command(*args, **options)


def diff(old: str | os.PathLike[str], new: str | os.PathLike[str],
         **options: Any) -> dict[str, Any]:
    """``release diff OLD NEW --json`` as a dict: rows added, removed, changed and moved
    between splits, per split and column (``pipelines.release.diff`` keywords)."""
    return _call_release_command("diff", os.fspath(old), os.fspath(new), **options)


def leakage(path: str | os.PathLike[str], **options: Any) -> dict[str, Any]:
    """``release leakage DIR --json`` as a dict: questions and documents shared by splits,
    and overlap with external evaluation sets (``against=[files]``; see
    ``pipelines.release.leakage`` for the other keywords)."""
    return _call_release_command("leakage", os.fspath(path), **options)


def browse(path: str | os.PathLike[str], **options: Any) -> dict[str, Any]:
    """``release browse DIR`` without the server: write the release's HTML site (``out=``,
    default ``site/<dataset>/<version>``) and return what its ``site.json`` records."""
    return _call_release_command("browse", os.fspath(path), **options)


def _table_split(directory: str) -> tuple[str, str]:
    """The config of a table directory and our name of its split: ``dev`` (the Hub's
    ``validation``) for split tables, else the table's own name (``questions``)."""
    config, split = table_name(directory)
    return config, directory.rsplit("/", 1)[-1] if split in SPLIT_NAMES.values() else split


def _names_in(manifest: dict[str, Any]) -> dict[str, list[str]]:
    """config -> our split names, from the manifest alone (no file is read)."""
    names: dict[str, list[str]] = {}
    for directory in parquet_directories(manifest.get("files", {})):
        config, split = _table_split(directory)
        if split not in names.setdefault(config, []):
            names[config].append(split)
    order = list(SPLIT_NAMES)
    return {config: sorted(keys, key=lambda k: (order.index(k) if k in order else len(order), k))
            for config, keys in names.items()}


def _main_config(manifest: dict[str, Any], names: dict[str, list[str]]) -> str:
    """The config ``load_dataset(dir)`` loads: that of the manifest's first split, as
    ``publish`` orders the card's configs."""
    first = main_config(manifest)
    if first in names:
        return first
    return "default" if "default" in names else min(names, default="")


def _pick(wanted: str, choices: Sequence[str], what: str, where: str) -> None:
    if wanted not in choices:
        close = difflib.get_close_matches(wanted, list(choices), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UsageError(f"no {what} {wanted!r} in {where}{hint}; choose from "
                         f"{', '.join(choices) or 'none'}")


def _read(version_dir: str, table: Table, columns: list[str] | None) -> pa.Table:
    parts = []
    for name in table.files:
        with FileSystems.open(FileSystems.join(version_dir, *name.split("/")),
                              compression_type=RAW) as handle:
            parts.append(read_parquet(handle, columns))
    return pa.concat_tables(parts)


def load_release(path: str | os.PathLike[str], *, verify: bool = True, table: str | None = None,
                 split: str | None = None,
                 columns: Sequence[str] | None = None) -> pa.Table | dict[str, pa.Table]:
    """A release's table as pyarrow: one split (``split="train"``; ``"validation"`` also
    names ``dev``) or a dict split -> ``pyarrow.Table`` in release order. ``path`` is a version
    directory or a dataset directory with ``LATEST``. ``table`` is the config to read
    (``"default"`` for train/dev/test, ``"questions"``, ``"candidates"``, ``"docs"``,
    ``"lexicon"``, ``"votes"``, ``"rejected_queries"``); by default the one
    ``datasets.load_dataset(dir)`` loads. With ``verify`` (default) every file is re-hashed
    against the manifest first: ``DamagedReleaseError`` names each bad file. Unknown table,
    split or column names raise ``UsageError``; table and split before any hashing. A release
    made from simulated votes (its manifest's ``simulated``) is read all the same, with a
    ``SimulatedAnnotationsWarning`` saying so."""
    version_dir = resolve_release(os.fspath(path))
    try:
        manifest = read_manifest(version_dir)
    except ManifestError as error:  # unreadable, too deeply nested or of the wrong shape
        raise DamagedReleaseError(f"release {version_dir} does not match its manifest "
                                  f"({MANIFEST}: {error})") from error
    names = _names_in(manifest)
    config = table or _main_config(manifest, names)
    _pick(config, list(names), "table", version_dir)
    if split is not None:
        if split not in names[config]:
            split = OUR_SPLIT_NAMES.get(split, split)
        _pick(split, names[config], "split", f"table {config!r} of {version_dir}")
    if verify:
        require_intact(version_dir, deep=True)
    warn_if_simulated(manifest, version_dir)
    files = {name: manifest["files"][name]
             for directory, names in parquet_directories(manifest["files"]).items()
             if _table_split(directory)[0] == config for name in names}
    tables = release_tables(version_dir, files, main=config)
    if columns is not None:
        columns = list(columns)
        for column in columns:
            _pick(column, tables[0].schema.names, "column", f"table {config!r} of {version_dir}")
    by_split = {_table_split(t.directory)[1]: t for t in tables}
    if split is not None:
        return _read(version_dir, by_split[split], columns)
    return {name: _read(version_dir, t, columns) for name, t in by_split.items()}

