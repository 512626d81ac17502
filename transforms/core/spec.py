"""One declaration per dataset: ``DatasetSpec``.

A spec says everything the toolkit needs to build, publish, describe, browse and evaluate a
dataset, once (as TFDS's ``DatasetBuilder`` + ``DatasetInfo`` do):

* ``name``, ``version``, ``about`` and the releases it writes (``ReleaseKind``: NQ writes
  ``nq`` or ``nq_questions``, JNQ ``jnq`` or ``jboolq``), each with its schema, field docs,
  stats, card, baselines, browser renderer and evaluator;
* ``options``: a frozen dataclass of typed options (``transforms.core.options``), from which
  the command line, the ``pipelines.api`` function and the Flex Template metadata are made;
* ``counters``: the ``Counter`` constants its stages tally and its card and summary read
  (``transforms.core.counters``);
* ``plan(options)``: the checks and resolutions made before any work (inputs exist, the
  defaults that depend on other options), giving a ``Plan``;
* ``transform(plan, target)``: the one composite ``PTransform`` that stages the release;
* ``summary(result)``: the lines printed after a run;
* ``refresh``: what one input is and when it is unchanged, so ``--previous`` can carry its
  rows (``RefreshRule``, ``transforms.release.refresh``);
* each release kind's ``invariants`` (``TableInvariants``): the id column, the split group key,
  the answer spans and the other formats of the same rows every published row must agree
  with, carried or new, checked before the release is published
  (``transforms.release.invariants``).

Specs live next to their stages (``transforms/<dataset>/spec.py``); ``transforms.registry``
lists them, and everything that enumerates datasets (console scripts, Flex Templates, the
Python API, the browser, ``evaluate``) reads the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from transforms.core.counters import CounterSet

if TYPE_CHECKING:  # annotations only: listing specs imports neither Beam nor pyarrow
    import apache_beam as beam
    import pyarrow as pa

O = TypeVar("O")  # noqa: E741 - the options dataclass of a spec

GENERIC_RENDERER = "generic"


SPLIT = "{split}"  # in ``TableInvariants.tables``: any split name


@dataclass(frozen=True)
class TableInvariants:
    """What every row of some tables of a release must hold, whatever made the row (this run,
    or a refresh carrying it from ``--previous``); ``transforms.release.invariants`` checks
    it on the staged files before anything is published. Class labels need no declaration:
    every integer column the Parquet footer names a class label is checked against its names.

    ``tables`` is a release-relative table directory (``questions``, ``simplified/{split}``)
    in which ``{split}`` (``SPLIT``) stands for one split name. ``id_column`` (a dotted path,
    ``question.text``): unique over all those tables together. ``group_key``: the key the
    split is hashed from (``filters.text.splits.assign_split``), whose rows must all be in
    one split. ``spans``: answer-span checks (``transforms.release.invariant_spans``).
    ``references``: ``(column, tables, id column)``: every value of ``column`` (or of its
    list) is an id of those tables (ReQA's correct candidates). ``agrees_with``: the same
    rows published in another format of the release, each a
    ``transforms.release.invariant_formats.FormatAgreement`` (its tables and how both layouts
    give an id and its fields): every id is in both, with equal fields (NQ's HF Parquet and
    ``simplified`` rows)."""

    tables: str = SPLIT
    id_column: str | None = None
    group_key: str | None = None
    spans: tuple[Any, ...] = ()
    references: tuple[tuple[str, str, str], ...] = ()
    agrees_with: tuple[Any, ...] = ()


@dataclass(frozen=True)
class ReleaseKind:
    """One kind of release a dataset writes (a TFDS ``BuilderConfig``): its directory name
    under ``--output`` and how it is described, checked, browsed and evaluated."""

    dataset: str
    description: str
    schema: pa.Schema | None = None
    field_docs: Mapping[str, str] = field(default_factory=dict)
    make_stats: Callable[[dict, dict], dict] | None = None
    make_card: Callable[[dict, dict], str] | None = None
    baselines: Callable[[str], dict] | None = None
    renderer: str = GENERIC_RENDERER  # module of ``transforms.browse.renderers``
    evaluator: str | None = None  # task of ``python -m pipelines.evaluate``
    invariants: tuple[TableInvariants, ...] = ()  # checked on every row before publishing


@dataclass(frozen=True)
class RefreshRule:
    """What a refresh (``--previous``) carries: the unit of input whose rows are carried
    together, when it counts as unchanged, and the key of a published row (the same key as
    the unit that made it)."""

    unit: str  # one line for --help, the card and the docs: "a capture (URL, timestamp, digest)"
    row_key: Callable[[dict[str, Any]], str]
    # checks the previous release can be built on, before any work: (previous, recompute_all)
    check: Callable[[Any, bool], None] | None = None


@dataclass(frozen=True)
class Plan(Generic[O]):
    """What one run will do, decided before any work from the checked options."""

    options: O
    release: ReleaseKind
    splits: tuple[str, ...]
    source: Mapping[str, Any]
    recorded: Mapping[str, Any] = field(default_factory=dict)  # manifest values that differ
    before_publish: Callable[[Any], None] | None = None  # called with the ReleaseTarget
    context: Any = None  # values computed before the job (a frozen dataclass of the dataset)
    previous: Any = None  # the ``PreviousRelease`` a refresh carries rows from, else None
    refresh_note: str = ""  # what this refresh does when not the default (card and summary)
    # the input release's simulated-annotations record (transforms.release.simulated), which
    # the manifest copies so that a release built from simulated votes says so; else None
    simulated: Mapping[str, Any] | None = None
    # the network endpoints the job will ask (``transforms.clients.preflight.Endpoint``),
    # each checked once before the job; () when none or with --no-preflight
    endpoints: tuple[Any, ...] = ()


@dataclass(frozen=True)
class DatasetSpec(Generic[O]):
    """The declaration of one dataset (see the module docstring)."""

    name: str  # ``qa-build <name>``
    module: str  # ``python -m pipelines.<module>``
    version: str
    about: str  # one line: what it builds
    description: str  # the ``--help`` description
    options: type[O]
    releases: tuple[ReleaseKind, ...]
    counters: CounterSet
    plan: Callable[[O], Plan[O]]
    transform: Callable[[Plan[O], Any], beam.PTransform]
    summary: Callable[[dict[str, Any]], str]
    output_label: str = ""  # how ``--output``'s help names the release (default: its name)
    extra_releases: tuple[ReleaseKind, ...] = ()  # written by other tools (annotated)
    refresh: RefreshRule | None = None  # None: --previous is refused (exit 2)

    @property
    def command(self) -> str:
        """The entry point a manifest records and a card names."""
        return f"python -m pipelines.{self.module}"

    def release(self, dataset: str) -> ReleaseKind:
        """The release kind named ``dataset`` (``KeyError`` when the spec has none)."""
        for kind in (*self.releases, *self.extra_releases):
            if kind.dataset == dataset:
                return kind
        raise KeyError(dataset)
