import gzip
import json

import pytest

from filters.annotation.nq import (
    check_nq_vote,
    long_answer_type,
    nq_annotation,
    with_short_answer_bytes,
)
from tests.filters.annotation.test_nq import _example, _vote
from transforms.annotation.release_examples import DamagedReleaseError, nq_view, split_files
from transforms.annotation.release_examples_beam import _ReadSplitFile


@pytest.mark.parametrize("change", [
    {}, {"long_answer_candidate": 1, "short_answers": [{"start_token": 9, "end_token": 10}]},
    {"long_answer_candidate": 2, "short_answers": []},
    {"long_answer_candidate": -1, "short_answers": []},
])
def test_a_view_converts_votes_exactly_like_the_whole_example(change):
    example, vote = _example(), _vote(**change)
    view = nq_view(example)
    check_nq_vote(vote, view)
    from_view = nq_annotation(vote, view)
    assert with_short_answer_bytes(from_view, example["document_tokens"]) == nq_annotation(
        vote, example)
    index = vote.long_answer_candidate
    assert long_answer_type(view, index) == long_answer_type(example, index)
    assert "document_html" not in view and "document_tokens" not in view


def test_files_are_numbered_per_split_in_sorted_order(tmp_path):
    for name in ("b.jsonl.gz", "a.jsonl.gz"):
        (tmp_path / name).write_bytes(b"")
    files = split_files([("dev", str(tmp_path / "*.jsonl.gz"))])
    assert [(s, p.rsplit("/", 1)[1], i, n) for s, p, i, n in files] == [
        ("dev", "a.jsonl.gz", 0, 2), ("dev", "b.jsonl.gz", 1, 2)]


def test_a_damaged_release_file_fails_the_job(tmp_path):
    path = tmp_path / "nq-dev-00.jsonl.gz"
    data = gzip.compress((json.dumps(_example()) + "\n").encode() * 3)
    path.write_bytes(data[:-20])
    with pytest.raises(DamagedReleaseError, match="damaged"):
        list(_ReadSplitFile("nq").process(("dev", str(path), 0, 1)))
