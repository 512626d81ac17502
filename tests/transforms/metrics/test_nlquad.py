"""NLQuAD metrics: SQuAD-normalized EM/P/R/F1, offset IoU and the published string-search IoU."""

from __future__ import annotations

import random
import re

import pytest

from filters.bbc.article import PARAGRAPH, SUBHEADING, Block
from filters.nlquad.qa import build_document
from transforms.metrics.nlquad import (
    NlquadGold,
    char_to_word_interval,
    exact_match,
    gold_from_rows,
    gold_from_squad,
    interval_iou,
    legacy_iou,
    locate_prediction,
    nlquad_metrics,
    normalize_answer,
    offset_iou,
    precision_recall_f1,
    score_prediction,
    treebank_tokenize,
    word_spans,
)

STORM = "the storm hit the coast then the storm moved inland"


def storm_gold() -> NlquadGold:
    start = STORM.index("the storm moved")
    return NlquadGold("q1", STORM, "the storm moved inland", start, len(STORM), 6, 10)


def test_normalization_is_squad():
    assert normalize_answer("The  Cat, an owl & A dog!") == "cat owl dog"
    assert normalize_answer("Theatre\nthe\tend") == "theatre end"


def test_exact_match_and_bag_of_words_scores():
    assert exact_match("The cat sat.", "cat  sat") == 1.0
    assert exact_match("The cat sat.", "the cat") == 0.0
    precision, recall, f1 = precision_recall_f1("the cat sat on the mat", "cat sat down")
    assert (precision, recall) == (2 / 3, 2 / 4)
    assert f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert precision_recall_f1("cat", "dog") == (0.0, 0.0, 0.0)
    assert precision_recall_f1("the", "") == (1.0, 1.0, 1.0)  # both empty after normalization
    assert precision_recall_f1("cat", "") == (0.0, 0.0, 0.0)
    assert precision_recall_f1("cat cat dog", "cat") == (1.0, 1 / 3, 0.5)


def test_word_intervals_from_characters():
    context = "Alpha beta\ngamma  delta"
    spans = word_spans(context)
    assert spans == [(0, 5), (6, 10), (11, 16), (18, 23)]
    assert char_to_word_interval(spans, 6, 16) == (1, 3)
    assert char_to_word_interval(spans, 5, 6) == (1, 1)  # only whitespace: no word
    assert char_to_word_interval(spans, 8, 12) == (1, 3)  # partial words count
    assert char_to_word_interval(spans, 0, 23) == (0, 4)
    assert char_to_word_interval(spans, 7, 7) == (1, 1)


def test_interval_iou():
    assert interval_iou((6, 8), (6, 10)) == 0.5
    assert interval_iou((0, 2), (6, 10)) == 0.0
    assert interval_iou((3, 3), (3, 3)) == 1.0
    assert interval_iou((0, 10), (6, 10)) == 0.4
    assert offset_iou(STORM, (6, 8), (6, 10), unit="word") == 0.5
    gold = storm_gold()
    assert offset_iou(STORM, (gold.answer_start, gold.answer_start + 9),
                      (gold.answer_start, gold.answer_end)) == 0.5
    with pytest.raises(ValueError):
        offset_iou(STORM, (0, 1), (0, 1), unit="token")


def test_worked_example_of_the_docstring():
    gold = storm_gold()
    inside = score_prediction(gold, {"answer_word_start": 6, "answer_word_end": 8})
    assert (inside["iou"], inside["iou_legacy"]) == (0.5, 0.2)
    outside = score_prediction(gold, {"answer_word_start": 0, "answer_word_end": 2})
    assert (outside["iou"], outside["iou_legacy"]) == (0.0, 0.2)
    # same text, so EM/P/R/F1 cannot tell them apart either
    assert inside["f1"] == outside["f1"] == 0.5
    exact = score_prediction(gold, {"answer_start": gold.answer_start,
                                    "answer_end": gold.answer_end})
    assert exact == {"exact_match": 1.0, "precision": 1.0, "recall": 1.0, "f1": 1.0,
                     "iou": 1.0, "iou_legacy": 1.0}


def test_iou_agree_for_unique_answers():
    context = "Rain fell in the north. Snow fell in the south. Wind blew in the west."
    gold = NlquadGold("q", context, "Snow fell in the south. Wind blew in the west.",
                      context.index("Snow"), len(context))
    prediction = "Wind blew in the west."
    scores = score_prediction(gold, prediction)
    # whitespace words: 5 of 10; legacy tokens (periods separate): 6 of 12
    assert scores["iou"] == scores["iou_legacy"] == 0.5


def _published_jaccard(context, gold, prediction, tokenize):
    """The published algorithm on character *sets*, as the NLQuAD script builds them."""
    text = " ".join(tokenize(context)).lower()

    def positions(answer):
        answer = " ".join(tokenize(answer)).lower()
        if answer == "":
            return set()
        start = text.find(answer)
        end = len(text) - text[::-1].find(answer[::-1])
        return set() if start == -1 else set(range(start, end))

    gold_set, pred_set = positions(gold), positions(prediction)
    inter, union = sorted(gold_set & pred_set), sorted(gold_set | pred_set)
    inter_len = len(tokenize(text[inter[0]:inter[-1] + 1])) if inter else 0
    union_len = len(tokenize(text[union[0]:union[-1] + 1])) if union else 0
    return 1 if inter_len == 0 and union_len == 0 else inter_len / union_len


@pytest.mark.parametrize("tokenize", [str.split, treebank_tokenize])
def test_legacy_iou_matches_the_published_algorithm(tokenize):
    rng = random.Random(11)
    vocabulary = ["the", "storm", "hit", "coast", "then", "moved", "inland", ".", ",", "it's",
                  "Storm", "he"]
    for _ in range(400):
        words = [rng.choice(vocabulary) for _ in range(rng.randint(1, 14))]
        context = " ".join(words)
        pieces = []
        for _ in range(2):
            i = rng.randrange(len(words))
            j = rng.randint(i, min(len(words), i + 5))
            pieces.append(" ".join(words[i:j]) if rng.random() < 0.9 else "absent words")
        gold, prediction = pieces
        expected = _published_jaccard(context, gold, prediction, tokenize)
        if expected == 0:
            expected = _published_jaccard(context, gold, prediction.strip()[:-5], tokenize)
        assert legacy_iou(context, gold, prediction, tokenize) == expected, (context, gold,
                                                                             prediction)


def test_legacy_quirks():
    # a missing answer on both sides is a perfect 1, as in the script
    assert legacy_iou("some context", "absent", "missing") == 1.0
    # a zero is retried without the prediction's last 5 characters
    context = "markets fell sharply on monday"
    assert legacy_iou(context, "fell sharply", "fell sharply xyzw", retry_truncated=False) == 0
    assert legacy_iou(context, "fell sharply", "fell sharply xyzw") == 1.0
    # str.find matches inside words: "he" is found in "the"
    assert legacy_iou("the end", "the end", "he") == 0.5


def test_treebank_tokenize():
    assert treebank_tokenize("I don't know, it's 3.5 well-known...") == [
        "I", "do", "n't", "know", ",", "it", "'s", "3.5", "well-known", "..."]


def test_locate_text_predictions():
    gold = storm_gold()
    located = locate_prediction(gold, "the storm")
    assert (located.interval, located.occurrences) == ((0, 2), 2)  # first of two occurrences
    located = locate_prediction(gold, "moved   inland")  # whitespace differs: word search
    assert (located.interval, located.occurrences) == ((8, 10), 1)
    assert locate_prediction(gold, "hurricane").interval is None
    assert locate_prediction(gold, "  ").interval == (0, 0)
    by_words = locate_prediction(gold, {"answer_word_start": 8, "answer_word_end": 10})
    assert by_words.text == "moved inland"
    assert locate_prediction(gold, {"answer_word_start": 3, "answer_word_end": 3}).text == ""


@pytest.mark.parametrize("bad, message", [
    ({"answer_start": 5, "answer_end": 999}, "outside"),
    ({"answer_start": 5}, "integer"),
    ({"answer_word_start": 2, "answer_word_end": 11}, "outside"),
    ({"start": 1}, "needs"),
    (42, "string or an offsets"),
])
def test_bad_predictions_raise(bad, message):
    with pytest.raises(ValueError, match=message):
        locate_prediction(storm_gold(), bad)


def test_gold_from_rows_and_squad_agree():
    gold = storm_gold()
    row = {"id": "q1", "context": STORM, "answer_text": gold.answer_text,
           "answer_start": gold.answer_start, "answer_end": gold.answer_end}
    from_rows = gold_from_rows([row])["q1"]
    assert from_rows.word_interval() == (6, 10)
    squad = {"data": [{"title": "t", "paragraphs": [{"context": STORM, "qas": [
        {"id": "q1", "question": "?", "answers": [{"text": gold.answer_text,
                                                   "answer_start": gold.answer_start}]}]}]}]}
    from_squad = gold_from_squad(squad)["q1"]
    assert from_squad == from_rows
    with pytest.raises(ValueError, match="lacks"):
        gold_from_rows([{"id": "x", "context": "c"}])
    with pytest.raises(ValueError):
        gold_from_squad({"version": 1})


def test_release_word_offsets_equal_character_offsets():
    blocks = [Block(PARAGRAPH, "Intro, with  odd\tspacing."), Block(SUBHEADING, "Why?"),
              Block(PARAGRAPH, "First answer."), Block(PARAGRAPH, "Second one here."),
              Block(SUBHEADING, "What next?"), Block(PARAGRAPH, "The end.")]
    document = build_document(blocks, is_boilerplate=lambda text: False)
    for qa in document.qas:
        gold = NlquadGold("q", document.context, qa.answer_text, qa.answer_start,
                          qa.answer_end)
        assert gold.word_interval() == (qa.answer_word_start, qa.answer_word_end)


def test_dataset_means_and_counts():
    context = "One two three. Four five six. Seven eight nine."
    gold = gold_from_rows([
        {"id": "a", "context": context, "answer_text": "Four five six.",
         "answer_start": 15, "answer_end": 29, "answer_word_start": 3, "answer_word_end": 6},
        {"id": "b", "context": context, "answer_text": "Seven eight nine.",
         "answer_start": 30, "answer_end": 47},
        {"id": "c", "context": context, "answer_text": "One two three.",
         "answer_start": 0, "answer_end": 14},
    ])
    assert context[15:29] == "Four five six." and context[30:47] == "Seven eight nine."
    predictions = {"a": "Four five six.", "b": {"answer_start": 30, "answer_end": 41},
                   "zzz": "unknown"}
    result = nlquad_metrics(gold, predictions)
    assert result["n"] == 3 and result["n_missing_predictions"] == 1
    assert result["n_unknown_prediction_ids"] == 1
    assert result["n_ambiguous_text_predictions"] == 0
    assert result["exact_match"] == pytest.approx(1 / 3)
    assert result["iou"] == pytest.approx((1 + 2 / 3 + 0) / 3)
    assert result["precision"] == pytest.approx((1 + 1 + 0) / 3)
    assert result["recall"] == pytest.approx((1 + 2 / 3 + 0) / 3)
    assert set(result) == {"exact_match", "precision", "recall", "f1", "iou", "iou_legacy", "n",
                           "n_missing_predictions", "n_unknown_prediction_ids",
                           "n_ambiguous_text_predictions", "n_unlocated_text_predictions"}
    with pytest.raises(ValueError, match="prediction b"):
        nlquad_metrics(gold, {"b": {"answer_start": 40, "answer_end": 10}})


def test_ambiguous_and_unlocated_are_counted():
    gold = {"q1": storm_gold()}
    assert nlquad_metrics(gold, {"q1": "the storm"})["n_ambiguous_text_predictions"] == 1
    result = nlquad_metrics(gold, {"q1": "a tornado"})
    assert result["n_unlocated_text_predictions"] == 1 and result["iou"] == 0.0


def test_docstring_example_is_in_the_module():
    import transforms.metrics.nlquad as module

    doc = module.__doc__
    assert re.search(r"= 2 / 4 = 0\.5", doc) and re.search(r"= 2 / 10 = 0\.2", doc)
