"""Counter names as constants that stages, cards and summaries share.

A stage counts with ``tally(PROMO_LIST_REMOVED)``; the card and the summary read
``Counts(stats["counts"], SPEC.counters)[PROMO_LIST_REMOVED]``. A name is typed once, where
the constant is declared, so a misspelt one is a ``NameError`` at import, and reading a
counter the dataset does not declare raises ``UnknownCounterError`` instead of printing 0
(datatrove's ``StatHints`` play the same role). A declared counter that never fired reads 0.

Families (``fetch.failed.<kind>``) are declared once with ``CounterFamily`` and read with
``counts.family(FAILED)``, which returns every member that fired.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


class UnknownCounterError(KeyError):
    """A counter read that its dataset does not declare (a misspelt or removed name)."""


@dataclass(frozen=True, order=True)
class Counter:
    """One count of ``stats.json``: ``counts[stage][name]``."""

    stage: str
    name: str

    def __str__(self) -> str:
        return f"{self.stage}.{self.name}"


@dataclass(frozen=True, order=True)
class CounterFamily:
    """Counts named ``<prefix>.<member>`` in one stage, members known only at run time
    (``failed.<kind>``, ``rejected.<reason>``)."""

    stage: str
    prefix: str

    def member(self, name: str) -> Counter:
        """The counter of one member: ``FAILED.member("timeout")``."""
        return Counter(self.stage, f"{self.prefix}.{name}")

    def __str__(self) -> str:
        return f"{self.stage}.{self.prefix}.*"


@dataclass(frozen=True)
class CounterSet:
    """The counters a dataset declares: single counters and families."""

    counters: frozenset[Counter] = frozenset()
    families: frozenset[CounterFamily] = frozenset()

    @classmethod
    def of(cls, *declared: Counter | CounterFamily | CounterSet) -> CounterSet:
        """A set from counters, families and other sets (a dataset's own plus shared ones)."""
        counters: set[Counter] = set()
        families: set[CounterFamily] = set()
        for item in declared:
            if isinstance(item, CounterSet):
                counters |= item.counters
                families |= item.families
            elif isinstance(item, CounterFamily):
                families.add(item)
            else:
                counters.add(item)
        return cls(frozenset(counters), frozenset(families))

    @classmethod
    def from_module(cls, namespace: Mapping[str, Any]) -> CounterSet:
        """Every ``Counter`` and ``CounterFamily`` constant of a module (``vars(module)``)."""
        return cls.of(*(value for value in namespace.values()
                        if isinstance(value, (Counter, CounterFamily))))

    def declares(self, counter: Counter) -> bool:
        """Whether ``counter`` is declared, alone or as a member of a family."""
        if counter in self.counters:
            return True
        return any(counter.stage == family.stage and counter.name.startswith(family.prefix + ".")
                   for family in self.families)

    def undeclared(self, counts: Mapping[str, Mapping[str, int]]) -> list[str]:
        """``stage.name`` of every count in ``counts`` this set does not declare."""
        return sorted(f"{stage}.{name}" for stage, names in counts.items() for name in names
                      if not self.declares(Counter(stage, name)))

    def __iter__(self):
        return iter(sorted(self.counters))


class Counts:
    """A strict read view of ``stats["counts"]`` (``{stage: {name: count}}``)."""

    def __init__(self, counts: Mapping[str, Mapping[str, int]], declared: CounterSet):
        self._counts = counts
        self._declared = declared

    def __getitem__(self, counter: Counter) -> int:
        if not isinstance(counter, Counter) or not self._declared.declares(counter):
            raise UnknownCounterError(f"counter {counter} is not declared by this dataset")
        return int(self._counts.get(counter.stage, {}).get(counter.name, 0))

    def family(self, family: CounterFamily) -> dict[str, int]:
        """``{member: count}`` of every member of a declared family that fired, sorted."""
        if family not in self._declared.families:
            raise UnknownCounterError(f"counter family {family} is not declared by this dataset")
        start = family.prefix + "."
        names = self._counts.get(family.stage, {})
        return {name[len(start):]: int(count) for name, count in sorted(names.items())
                if name.startswith(start)}

    def fired(self, stage: str) -> dict[str, int]:
        """``{name: count}`` of every count of ``stage`` that fired, sorted by name (for a
        card or summary that lists a whole stage); an undeclared one raises
        ``UnknownCounterError``."""
        names = self._counts.get(stage, {})
        for name in names:
            if not self._declared.declares(Counter(stage, name)):
                raise UnknownCounterError(f"counter {stage}.{name} is not declared by this "
                                          "dataset")
        return {name: int(count) for name, count in sorted(names.items())}

    def total(self, counters: Iterable[Counter]) -> int:
        """The sum of several declared counters."""
        return sum(self[counter] for counter in counters)
