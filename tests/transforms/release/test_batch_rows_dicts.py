"""A dict row is told from carried Arrow data without the protocol's ``isinstance``: every
sharded writer asks it of every row, and a ``runtime_checkable`` protocol check inspects the
object's attributes (about 50 microseconds a call under load, seconds over a release)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from transforms.release import batch_rows


class _NoProtocolCheck(type):
    def __instancecheck__(cls, instance) -> bool:
        raise AssertionError("a dict row went through the CarriedReference protocol check")


class _Refused(metaclass=_NoProtocolCheck):
    """What ``CarriedReference`` becomes here: any isinstance against it fails the test."""


@pytest.fixture
def no_protocol_check(monkeypatch):
    monkeypatch.setattr(batch_rows, "CarriedReference", _Refused)


def test_a_dict_row_is_answered_before_the_protocol(no_protocol_check):
    row = {"id": "a", "context": "x"}
    assert batch_rows.is_batch(row) is False
    assert batch_rows.row_count(row) == 1


def test_carried_data_is_still_told_apart():
    batch = pa.RecordBatch.from_pylist([{"id": "a"}, {"id": "b"}])
    assert batch_rows.is_batch(batch) and batch_rows.row_count(batch) == 2
    assert not batch_rows.is_batch(("train", {"id": "a"}))
