"""A refresh's carried documents and skipped captures cross Beam's stage boundaries pickled:
as their values, not as a dict naming every field."""

import pickle

import pytest
from apache_beam.coders import registry

from transforms.nlquad.outcomes import SkipOutcome
from transforms.nlquad.sidecar import CapturedDocument

DOCUMENT = CapturedDocument(
    "https://www.bbc.co.uk/news/uk-1", "20170101000000", "ABCD", "bbc-1", "news/uk-1",
    "https://www.bbc.co.uk/news/uk-1", "2017-01-01T00:00:00Z", False, "text-fp",
    ("p1", "p2"), "train", 2, {"document_words": 300}, (3, 4))
OUTCOME = SkipOutcome("https://www.bbc.co.uk/sport/1", "20170101000000", "EFGH", "not_news",
                      "", "fallback")


@pytest.mark.parametrize("record", [DOCUMENT, OUTCOME])
def test_a_record_is_pickled_as_its_values(record):
    pickled = pickle.dumps(record)
    assert pickle.loads(pickled) == record
    assert b"capture_url" not in pickled and b"capture_timestamp" not in pickled
    coder = registry.get_coder(object)  # what Beam codes them with between stages
    assert coder.decode(coder.encode(record)) == record


def test_a_document_with_its_defaults_round_trips():
    bare = CapturedDocument("u", "t", "D", "id", "a", "c", "p", True, "x", (), "dev", 0)
    again = pickle.loads(pickle.dumps(bare))
    assert again == bare and again.lengths == {} and again.answer_sentences == ()
