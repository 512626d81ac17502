"""``Carry``'s count of one key, and what a dataset joins in the same step
(``carry.AlsoJoined``)."""

from __future__ import annotations

from transforms.release.refresh.carry import _count_and_carry, _count_key
from transforms.release.refresh.counters import CARRIED, INPUTS_CARRIED, NEW, RECOMPUTED, REMOVED


def outputs(emitted) -> list[tuple[str, object]]:
    return [(output.tag, output.value) for output in emitted]


def test_a_key_is_counted_then_what_the_dataset_joins_for_it_is_emitted():
    grouped = {"previous": [2], "fresh": [], "units": [1], "extra": ["r"]}
    seen = []

    def also(values):
        seen.append(values)
        yield from values["extra"]

    assert [getattr(out, "tag", out) for out in _count_key(("k", grouped), False, also)] == [
        "tally", "tally", "r"]
    assert seen == [grouped]
    assert outputs(_count_key(("k", grouped), False)) == [
        ("tally", (str(INPUTS_CARRIED), 1)), ("tally", (str(CARRIED), 2))]


def test_the_counts_of_each_kind_of_key():
    def counted(previous, fresh, units, recompute_all=False):
        item = ("k", {"previous": previous, "fresh": fresh, "units": units})
        return outputs(_count_key(item, recompute_all))

    assert counted([3], [], [1]) == [("tally", (str(INPUTS_CARRIED), 1)),
                                     ("tally", (str(CARRIED), 3))]
    assert counted([3], [1, 1], [1], recompute_all=True) == [
        ("tally", (str(RECOMPUTED), 2))]
    assert counted([], [1], [1]) == [("tally", (str(NEW), 1))]
    assert counted([3], [], []) == [("tally", (str(REMOVED), 3))]


def test_joined_rows_are_counted_and_carried_only_for_a_unit_of_this_run():
    rows = [("train", {"q": "a"}), ("train", {"q": "a", "part": 2})]
    grouped = {"previous": rows, "fresh": [], "units": [1]}

    def carried(values, recompute_all=False):
        return [out for out in _count_and_carry(("a", values), recompute_all)
                if not hasattr(out, "tag")]

    assert carried(grouped) == rows
    tallies = [out for out in _count_and_carry(("a", grouped), False) if hasattr(out, "tag")]
    assert outputs(tallies) == [("tally", (str(INPUTS_CARRIED), 1)),
                                ("tally", (str(CARRIED), 2))]
    assert carried({**grouped, "units": []}) == []  # gone from this run: removed
    assert carried({**grouped, "fresh": [1]}, recompute_all=True) == []


def test_a_key_without_previous_rows_reaches_also_with_none():
    seen = []
    list(_count_and_carry(("a", {"previous": [], "fresh": [1], "units": [1]}), False,
                          lambda values: seen.append(values["previous"]) or ()))
    assert seen == [[]]
