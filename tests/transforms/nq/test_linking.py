
from transforms.nq.example_ids import example_id
from transforms.nq.linking import shard_of, summary_label


def test_shards_are_stable_and_bounded():
    shards = [shard_of(f"question {i}", 4) for i in range(200)]
    assert set(shards) == {0, 1, 2, 3}
    assert shards == [shard_of(f"question {i}", 4) for i in range(200)]
    assert shard_of("x", 1) == 0


def test_example_ids_are_signed_int64_and_stable():
    value = example_id("who wrote hamlet")
    assert value == example_id("who wrote hamlet") and -(2**63) <= value < 2**63
    assert example_id("who wrote hamlet") != example_id("who wrote macbeth")


def test_summary_labels():
    assert summary_label("linking", "dropped.no_wikipedia_in_top5") == (
        "questions dropped, no_wikipedia_in_top5")
    assert summary_label("linking", "wikipedia_rank_2") == "top Wikipedia page at rank 2"
    assert summary_label("pages", "failed.page_missing") == "pages unusable, page_missing"
