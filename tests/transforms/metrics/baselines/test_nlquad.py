from transforms.clients.local_search import index_tokens
from transforms.metrics.baselines.nlquad import (
    bm25_window,
    first_window,
    last_window,
    random_window,
    window_starts,
)

WORDS = ("the harbour bridge opened in march after repairs while the ferry service "
         "stopped for two weeks because of the storm damage to the pier").split()


def test_fixed_windows():
    assert first_window(24, 5) == (0, 5)
    assert last_window(24, 5) == (19, 24)
    assert first_window(3, 5) == (0, 3) and last_window(3, 5) == (0, 3)


def test_random_window_is_reproducible_and_in_range():
    windows = {random_window(24, 5, f"q{i}") for i in range(50)}
    assert all(0 <= s and e == s + 5 <= 24 for s, e in windows)
    assert len(windows) > 5
    assert random_window(24, 5, "q7") == random_window(24, 5, "q7")


def test_sliding_windows_cover_the_end():
    assert window_starts(10, 4) == [0, 2, 4, 6]
    assert window_starts(11, 4) == [0, 2, 4, 6, 7]
    assert window_starts(3, 4) == [0]


def test_bm25_window_finds_the_matching_passage():
    start, end = bm25_window(WORDS, 6, "why did the ferry service stop", index_tokens)
    assert "ferry" in WORDS[start:end] and end - start == 6
    assert bm25_window(WORDS, 6, "zzz", index_tokens) == (0, 6)
    assert bm25_window("the of and the".split(), 2, "the", index_tokens) == (0, 2)
