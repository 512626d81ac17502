"""The card's and summary's relevance-floor lines and the small-index warning."""

from transforms.nq.floor_text import (
    card_lines,
    floor_sentence,
    small_index_warning,
    summary_lines,
)

STATS = {"counts": {"linking": {"questions": 10, "dropped.below_floor": 4}},
         "below_floor_share": 0.4}


def manifest(search: str = "local", pages: int | None = 46, **options) -> dict:
    source = {"search": search, **({"index_pages": pages} if pages is not None else {})}
    return {"source": source, "options": {"min_score": 0.2, "min_margin": 0.0, **options}}


def test_the_card_reports_the_share_dropped_below_the_floor():
    sentence = floor_sentence(manifest(), STATS)
    assert "--min-score 0.2" in sentence and "4 searched questions (40.0%)" in sentence
    assert "below_floor" in sentence


def test_a_backend_without_scores_or_a_zero_floor_is_said_not_to_apply():
    assert "not applied, --search mediawiki" in floor_sentence(manifest("mediawiki"), STATS)
    assert "off" in floor_sentence(manifest(min_score=0, min_margin=0), STATS)


def test_an_index_smaller_than_the_questions_is_warned_about_once_with_what_to_do():
    small = manifest(pages=4)
    warning = small_index_warning(small, STATS)
    assert warning.startswith("WARNING: small index: 4 pages for 10 questions searched")
    assert "own-wikipedia.md" in warning and "--search mediawiki" in warning
    assert sum("small index" in line for line in summary_lines(small, STATS)) == 1
    assert sum("small index" in line for line in card_lines(small, STATS)) == 1
    assert small_index_warning(manifest(pages=46), STATS) is None
    assert small_index_warning(manifest("mediawiki", pages=None), STATS) is None
