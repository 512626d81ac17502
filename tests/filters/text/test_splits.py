import hashlib
from collections import Counter

import pytest

from filters.text.splits import assign_split, parse_split_ratios, stable_unit_interval


def test_split_assignment_is_pinned():
    # A change here would move published articles between splits across versions.
    assert [assign_split(f"bbc-{i}", "nlquad") for i in range(12)] == [
        "train", "dev", "train", "train", "train", "train", "dev", "train", "train", "train",
        "train", "train"]
    digest = hashlib.sha256(b"nlquad\x00bbc-1").digest()
    assert stable_unit_interval("bbc-1", "nlquad") == int.from_bytes(digest[:8], "big") / 2**64


def test_ratios_are_respected_on_many_keys():
    counts = Counter(assign_split(f"doc-{i}", "salt") for i in range(20000))
    assert abs(counts["train"] / 20000 - 0.8) < 0.02
    assert abs(counts["dev"] / 20000 - 0.1) < 0.01
    assert abs(counts["test"] / 20000 - 0.1) < 0.01


def test_salt_changes_assignment():
    keys = [f"doc-{i}" for i in range(200)]
    assert [assign_split(k, "a") for k in keys] != [assign_split(k, "b") for k in keys]


def test_adding_documents_never_moves_existing_ones():
    before = {f"doc-{i}": assign_split(f"doc-{i}", "s") for i in range(100)}
    after = {f"doc-{i}": assign_split(f"doc-{i}", "s") for i in range(300)}
    assert all(after[k] == v for k, v in before.items())


@pytest.mark.parametrize("spec", ["80/10/10", "train=0.8,dev=0.1,test=0.1", "train=8,dev=1,test=1"])
def test_parse_ratios(spec):
    assert parse_split_ratios(spec) == (("train", 0.8), ("dev", 0.1), ("test", 0.1))


@pytest.mark.parametrize("spec", ["80/20", "train=-1,dev=2", "a=1,a=1", "0/0/0"])
def test_bad_ratios_rejected(spec):
    with pytest.raises(ValueError):
        parse_split_ratios(spec)


@pytest.mark.parametrize("spec", [
    "train=1,../../../X=1", "train=1,/tmp/abs=1", "train=1,a/b=1", "train=1,a\\b=1",
    "train=1,..=1", "train=1,.=1", "train=1,.hidden=1", "train=1,rejected=1",
    "train=1,README.md=1", "train=1,dataset_info.json=1", "train=1,LATEST=1", "x" * 65 + "=1",
])
def test_split_names_must_be_plain_path_components(spec):
    with pytest.raises(ValueError, match="invalid split name"):
        parse_split_ratios(spec)


@pytest.mark.parametrize("spec", ["train=nan,dev=1", "train=1,dev=inf", "nan/1/1",
                                  "80/inf/10", "train=-inf,dev=1", "train=1e999,dev=1"])
def test_nan_and_infinite_ratios_are_refused(spec):
    with pytest.raises(ValueError, match="finite"):
        parse_split_ratios(spec)

