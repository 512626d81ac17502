from filters.bbc.article import BREAK, LIST, PARAGRAPH, SUBHEADING, Block
from filters.nlquad.qa import build_document, is_interrogative


def P(text):
    return Block(PARAGRAPH, text)


def H(text):
    return Block(SUBHEADING, text)


BLOCKS = [
    P("Intro paragraph one."),
    H("What changed?"),
    P("First answer paragraph."),
    P("Second answer paragraph."),
    Block(LIST, items=("Link story",), link_only=True),
    H("Background"),
    P("Not an answer."),
    H("Who decides?"),
    P("The council decides."),
    Block(BREAK),
    P("After the break line."),
    H("Which towns?"),
    Block(LIST, items=("Town A", "Town B")),
    P("Listed above."),
    H("Why now?"),
    H("And then?"),
    P("Final words."),
    P("Do you have a question? Share your experiences by emailing haveyoursay@bbc.co.uk."),
]


def test_answers_offsets_and_drops():
    doc = build_document(BLOCKS)
    assert [(q.question, q.answer_text) for q in doc.qas] == [
        ("What changed?", "First answer paragraph.\nSecond answer paragraph."),
        ("Who decides?", "The council decides."),
        ("And then?", "Final words."),
    ]
    assert [(d.question, d.reason) for d in doc.dropped] == [
        ("Which towns?", "bullet_list_answer"),
        ("Why now?", "empty_answer"),
    ]
    for qa in doc.qas:
        assert doc.context[qa.answer_start:qa.answer_end] == qa.answer_text
        words = doc.context.split()
        assert words[qa.answer_word_start:qa.answer_word_end] == qa.answer_text.split()
        assert doc.paragraphs[qa.first_paragraph] == qa.answer_text.split("\n")[0]
    assert [q.ordinal for q in doc.qas] == [1, 2, 5]
    assert (doc.subheadings, doc.interrogative_subheadings) == (6, 5)


def test_context_hides_structure_and_templates():
    doc = build_document(BLOCKS)
    assert "What changed?" not in doc.context and "Background" not in doc.context
    assert "haveyoursay" not in doc.context
    assert "Link story" not in doc.context
    assert "Town A" in doc.context
    assert doc.removed_template_paragraphs == 1


def test_template_question_and_template_only_answer_are_boilerplate():
    doc = build_document([
        P("Body."),
        H("Do you have a question?"),
        P("Some text."),
        H("Can you help?"),
        P("Share your experiences by emailing haveyoursay@bbc.co.uk."),
    ])
    assert not doc.qas
    assert [d.reason for d in doc.dropped] == ["boilerplate_question", "boilerplate_question"]


def test_custom_boilerplate_predicate_and_separator():
    doc = build_document([H("What is it?"), P("keep me"), P("REPEATED footer")],
                         is_boilerplate=lambda t: t.startswith("REPEATED"), separator=" ")
    assert doc.context == "keep me"
    assert doc.qas[0].answer_text == "keep me"


def test_interrogative_rule():
    assert is_interrogative("What next?")
    assert is_interrogative("  'What now?'  ")
    assert is_interrogative("Is it \u201cover?\u201d")
    assert not is_interrogative("What next")
    assert not is_interrogative("Question? No.")


def test_promo_list_is_removed_from_context_and_answer_and_counted():
    promo = Block(LIST, items=("LOCAL RULES: What can I do?", "VIDEO: Hand washing"),
                  promo=True)
    doc = build_document([
        P("Intro."),
        H("How does it work?"),
        P("Riders leave at seven."),
        promo,
        H("Will it last?"),
        P("Until spring."),
        promo,
    ])
    assert [(q.question, q.answer_text) for q in doc.qas] == [
        ("How does it work?", "Riders leave at seven."), ("Will it last?", "Until spring.")]
    assert not doc.dropped
    assert doc.removed_promo_lists == 2
    assert doc.context == "Intro.\nRiders leave at seven.\nUntil spring."


def test_promo_list_beside_a_prose_list_still_drops_the_question():
    doc = build_document([
        H("What is it like?"),
        P("Symptoms vary."),
        Block(LIST, items=("One in seven is ill for four weeks",)),
        Block(LIST, items=("TESTING: How do I get a test?",), promo=True),
    ])
    assert [(d.question, d.reason) for d in doc.dropped] == [
        ("What is it like?", "bullet_list_answer")]
    assert doc.removed_promo_lists == 1
    assert "TESTING" not in doc.context
