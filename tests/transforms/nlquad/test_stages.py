"""NLQuAD Beam stages with TestPipeline + assert_that."""

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from filters.bbc.article import LIST, PARAGRAPH, SUBHEADING, Block
from tests.conftest import TEST_RUNNER
from transforms.core.accounting import DEAD_LETTER, REJECTED, SIDE_OUTPUTS, TALLY
from transforms.nlquad.stages import (
    ArticleRecord,
    DeduplicateArticles,
    ExtractQuestionAnswers,
    FindRepeatedParagraphs,
    ParsePages,
)
from transforms.sources.pages import CapturedPage

BODY = ("<html><body><div class='story-body__inner'><p>{0}</p>"
        "<h2 class='story-body__crosshead'>Why?</h2><p>Because.</p></div></body></html>")


def _pipeline():
    return test_pipeline.TestPipeline(options=PipelineOptions([TEST_RUNNER]))


def _article(asset, url, timestamp, published="2017-01-01T00:00:00Z", text="Same text.",
             blocks=None, headline="H"):
    """An Era B article; its blocks default to one question about ``text``."""
    if blocks is None:
        blocks = (Block(PARAGRAPH, text), Block(SUBHEADING, "Why?"),
                  Block(PARAGRAPH, "Because of " + text))
    return ArticleRecord(
        document_id=f"bbc-{asset}", asset_key=f"news/{asset}",
        canonical_url=f"https://www.bbc.co.uk/news/uk-{asset}", capture_url=url,
        capture_timestamp=timestamp, is_amp="/amp/" in url, era="B", headline=headline,
        published=published, blocks=blocks, encoding="utf-8")


def _extract(p, article, repeated=()):
    """``ExtractQuestionAnswers`` on one article, all rows to train, with its side outputs."""
    ratios = (("train", 1.0), ("dev", 0.0), ("test", 0.0))
    side = p | "Repeated" >> beam.Create(list(repeated))
    return (p | beam.Create([article]) | beam.ParDo(
        ExtractQuestionAnswers("s", ratios), repeated=beam.pvalue.AsDict(side))
        .with_outputs(*SIDE_OUTPUTS, ExtractQuestionAnswers.STATS, main="main"))


def test_parse_pages_keeps_skips_and_dead_letters(monkeypatch):
    import transforms.nlquad.stages as nlquad

    real_parse = nlquad.parse_bbc_article

    def flaky_parse(text):
        if "EXPLODE" in text:
            raise ValueError("parser bug")
        return real_parse(text)

    monkeypatch.setattr(nlquad, "parse_bbc_article", flaky_parse)
    pages = [
        CapturedPage("https://www.bbc.co.uk/news/uk-1234567", "20170101000000",
                     BODY.format("Hello.").encode(), "t"),
        CapturedPage("https://www.bbc.co.uk/news/uk-7654321", "20170101000000",
                     BODY.format("EXPLODE").encode(), "t"),
        CapturedPage("https://www.bbc.co.uk/news/av/uk-1111111", "20170101000000", b"", "t"),
        CapturedPage("https://www.bbc.co.uk/news/uk-2222222", "20170101000000",
                     b"<html><head></head>", "t"),
    ]
    with _pipeline() as p:
        out = (p | beam.Create(pages)
               | beam.ParDo(ParsePages()).with_outputs(*SIDE_OUTPUTS, main="main"))
        assert_that(out.main | beam.Map(lambda a: (a.document_id, a.era, a.paragraphs)),
                    equal_to([("bbc-1234567", "B", ["Hello.", "Because."])]), label="kept")
        assert_that(out[TALLY] | beam.CombinePerKey(sum), equal_to([
            ("pages.read", 4), ("pages.parsed", 1), ("pages.parsed_era_B", 1),
            ("pages.skipped.video_page", 1), ("pages.skipped.no_article_body", 1)]),
            label="tallies")
        assert_that(out[DEAD_LETTER] | beam.Map(lambda d: (d["url"], d["error_type"])),
                    equal_to([("https://www.bbc.co.uk/news/uk-7654321", "ValueError")]),
                    label="dead")


def test_deduplicate_captures_then_texts():
    articles = [
        _article("1000001", "http://www.bbc.co.uk/news/uk-1000001", "20170101060000"),
        _article("1000001", "https://www.bbc.com/news/uk-1000001", "20190101000000"),
        _article("1000001", "https://www.bbc.co.uk/news/amp/uk-1000001", "20170101010000"),
        _article("1000002", "http://www.bbc.co.uk/news/uk-1000002", "20180101000000",
                 published="2018-01-01T00:00:00Z"),
        _article("1000003", "http://www.bbc.co.uk/news/uk-1000003", "20170101000000",
                 text="Different."),
    ]
    with _pipeline() as p:
        kept, results = p | beam.Create(articles) | DeduplicateArticles()
        assert_that(kept | beam.Map(lambda a: a.capture_url), equal_to([
            "http://www.bbc.co.uk/news/uk-1000001", "http://www.bbc.co.uk/news/uk-1000003"]),
            label="kept")
        rejected = [r[REJECTED] for r in results] | beam.Flatten()
        assert_that(rejected | beam.Map(lambda kv: (kv[1]["url"], kv[1]["reason"])), equal_to([
            ("https://www.bbc.com/news/uk-1000001", "duplicate_capture"),
            ("https://www.bbc.co.uk/news/amp/uk-1000001", "duplicate_capture"),
            ("http://www.bbc.co.uk/news/uk-1000002", "duplicate_content"),
        ]), label="rejected")


def test_repeated_paragraphs_need_min_docs_and_words():
    articles = [_article(str(1000000 + i), f"u{i}", "2017", text="A repeated long footer line.")
                for i in range(3)] + [_article("2000000", "v", "2017", text="Unique words here.")]
    with _pipeline() as p:
        repeated = (p | beam.Create(articles) | FindRepeatedParagraphs(min_docs=3, min_words=4)
                    | beam.Map(lambda kv: kv[1]))
        assert_that(repeated, equal_to([3, 3]))


def test_extract_removes_repeated_paragraphs_and_assigns_splits():
    from filters.bbc.boilerplate import paragraph_fingerprint

    article = _article(
        "1234567", "u", "20170101000000", "2017-01-01T10:00:00Z", headline="Title",
        blocks=(Block(PARAGRAPH, "Intro."), Block(SUBHEADING, "What now?"),
                Block(PARAGRAPH, "Answer one. Two sentences."),
                Block(PARAGRAPH, "Repeated footer everywhere")))
    repeated = [(paragraph_fingerprint("Repeated footer everywhere"), 9)]
    with _pipeline() as p:
        out = _extract(p, article, repeated)
        assert_that(out.main | beam.Map(lambda kv: (kv[0], kv[1]["id"], kv[1]["answer_text"],
                                                    kv[1]["context"], kv[1]["date"])),
                    equal_to([("train", "bbc-1234567-q1", "Answer one. Two sentences.",
                               "Intro.\nAnswer one. Two sentences.", "2017-01-01")]),
                    label="rows")
        stats = out[ExtractQuestionAnswers.STATS] | beam.Filter(
            lambda kv: kv[0].startswith("all/"))
        assert_that(stats, equal_to([
            ("all/document_words", 5), ("all/document_sentences", 3),
            ("all/document_paragraphs", 2), ("all/questions_per_document", 1),
            ("all/answer_words", 4), ("all/answer_sentences", 2),
            ("all/answer_paragraphs", 1), ("all/question_words", 2)]), label="stats")
        assert_that(out[TALLY] | beam.Filter(lambda kv: kv[0].startswith("documents."))
                    | beam.CombinePerKey(sum), equal_to([
                        ("documents.deduplicated", 1), ("documents.repeated_paragraphs_removed", 1),
                        ("documents.kept.train", 1)]), label="tallies")


def test_extract_counts_removed_promo_lists():
    promo = Block(LIST, items=("LOCAL RULES: What can I do?",), promo=True)
    article = _article(
        "52567890", "u", "20200507000000", "2020-05-06T06:41:19Z", headline="Title",
        blocks=(Block(PARAGRAPH, "Intro."), Block(SUBHEADING, "How does it work?"),
                Block(PARAGRAPH, "By bicycle."), promo, Block(SUBHEADING, "Will it last?"),
                Block(PARAGRAPH, "Until spring."), promo))
    with _pipeline() as p:
        out = _extract(p, article)
        assert_that(out.main | beam.Map(lambda kv: (kv[1]["question"], kv[1]["answer_text"])),
                    equal_to([("How does it work?", "By bicycle."),
                              ("Will it last?", "Until spring.")]), label="rows")
        assert_that(out[TALLY] | beam.Filter(lambda kv: kv[0] in (
                        "documents.promo_list_removed", "questions.kept"))
                    | beam.CombinePerKey(sum),
                    equal_to([("documents.promo_list_removed", 2), ("questions.kept", 2)]),
                    label="tallies")


def test_parse_pages_detects_undeclared_encodings_and_counts_them():
    japanese = ("東京で大きな地震がありました。政府は対策を発表しました。"
                "気象庁によると、津波の心配はありません。")
    western = "The \u201cbest\u201d caf\u00e9 in Z\u00fcrich \u2013 r\u00e9sum\u00e9s"
    pages = [
        CapturedPage("https://www.bbc.co.uk/news/uk-1000001", "20170101000000",
                     BODY.format("Hello there.").encode("utf-16-le"), "t"),
        CapturedPage("https://www.bbc.co.uk/news/uk-1000002", "20170101000000",
                     BODY.format(japanese).encode("shift_jis"), "t"),
        CapturedPage("https://www.bbc.co.uk/news/uk-1000003", "20170101000000",
                     BODY.format(western).encode("cp1252"), "t"),
    ]
    with _pipeline() as p:
        out = (p | beam.Create(pages)
               | beam.ParDo(ParsePages()).with_outputs(*SIDE_OUTPUTS, main="main"))
        assert_that(out.main | beam.Map(lambda a: (a.document_id, a.encoding, a.paragraphs[0])),
                    equal_to([("bbc-1000001", "utf-16-le", "Hello there."),
                              ("bbc-1000002", "cp932", japanese),
                              ("bbc-1000003", "cp1252", western)]), label="kept")
        assert_that(out[TALLY] | beam.Filter(lambda kv: kv[0].startswith("pages.encoding"))
                    | beam.CombinePerKey(sum),
                    equal_to([("pages.encoding_detected", 2), ("pages.encoding_fallback", 1)]),
                    label="tallies")


def test_squad_extra_fields_add_nlquads_own_keys_only_when_asked():
    from transforms.nlquad.stages import squad_file

    row = {"document_id": "d", "question_index": 0, "title": "T", "date": "2020-01-01",
           "url": "https://www.bbc.com/news/x", "context": "Why? Because.", "question": "Why?",
           "id": "d-q0", "answer_text": "Because.", "answer_start": 5, "answer_end": 13}
    plain, extra = squad_file([row]), squad_file([row], extra_fields=True)
    assert plain["version"] == extra["version"] == "1.1"
    assert plain["data"][0] == {"title": "T", "paragraphs": [{"context": "Why? Because.", "qas": [
        {"question": "Why?", "id": "d-q0", "answers": [{"text": "Because.",
                                                        "answer_start": 5}]}]}]}
    assert {"date", "url"} <= set(extra["data"][0])
    assert extra["data"][0]["paragraphs"][0]["qas"][0]["answers"][0]["answer_end"] == 13
