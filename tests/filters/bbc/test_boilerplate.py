import pytest

from filters.bbc.boilerplate import (
    document_fingerprint,
    is_template_text,
    paragraph_fingerprint,
)


@pytest.mark.parametrize("text", [
    "Do you have long-Covid? Share your experiences by emailing haveyoursay@bbc.co.uk.",
    "Please include a contact number if you are willing to speak to a BBC journalist.",
    "Follow Newsbeat on Instagram, Facebook, Twitter and YouTube.",
    "Follow James on Twitter",
    "Listen to Newsbeat live at 12:45 and 17:45 weekdays - or listen back here.",
    "If you are reading this page and can\u2019t see the form you will need to visit the site",
    "Do you have a question?",
])
def test_templates(text):
    assert is_template_text(text)


@pytest.mark.parametrize("text", [
    "What happens next?",
    "He said he would follow the guidance on Twitter use.",
    "Officials want to get in front of the problem.",
    "Do you have to pay the fee?",
])
def test_article_text_is_not_template(text):
    assert not is_template_text(text)


def test_fingerprints_ignore_case_and_punctuation():
    assert paragraph_fingerprint("Hello, World!") == paragraph_fingerprint("hello world")
    assert document_fingerprint(["A b.", "C"]) == document_fingerprint(["a B", "c!"])
    assert document_fingerprint(["A"]) != document_fingerprint(["B"])
