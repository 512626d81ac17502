"""Wikimedia Enterprise dump lines: articles, records that are not articles (counted by the
caller as ``pages.skipped.not_article``) and lines of the wrong shape (dead-lettered)."""

from __future__ import annotations

import io
import json
import tarfile

from transforms.sources.search_corpus import Skipped, enterprise_records, page_record

ARTICLE = {"name": "Nile", "url": "https://en.wikipedia.org/wiki/Nile",
           "version": {"identifier": 77}, "namespace": {"identifier": 0},
           "article_body": {"html": "<html><body><p>River text</p></body></html>"}}


def _dump(lines: list[str]) -> io.BytesIO:
    payload = "".join(line + "\n" for line in lines).encode("utf-8")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("enwiki_0.ndjson")
        info.size = len(payload)
        archive.addfile(info, io.BytesIO(payload))
    buffer.seek(0)
    return buffer


def test_an_article_is_its_page_record():
    records = list(enterprise_records(_dump([json.dumps(ARTICLE), ""])))
    assert records == [page_record(ARTICLE["url"], "Nile", "wikipedia", 77,
                                   ARTICLE["article_body"]["html"])]


def test_a_record_that_is_not_an_article_is_yielded_as_skipped():
    talk = {**ARTICLE, "name": "Talk:Nile", "namespace": {"identifier": 1}}
    bare = {"name": "User:X", "namespace": {"identifier": 2}}  # no body: still only skipped
    records = list(enterprise_records(_dump([json.dumps(talk), json.dumps(bare),
                                             json.dumps(ARTICLE)])))
    assert records[:2] == [Skipped("not_article", "Talk:Nile"), Skipped("not_article", "User:X")]
    assert records[2]["title"] == "Nile"


def test_lines_of_the_wrong_shape_are_yielded_as_errors_and_reading_goes_on():
    bad = ["{broken", "[1, 2]", '"text"', json.dumps({"name": "x"}),
           json.dumps({**ARTICLE, "namespace": 1}), json.dumps({**ARTICLE, "version": 7}),
           json.dumps({**ARTICLE, "name": 5}), json.dumps({**ARTICLE, "url": None, "name": 5}),
           json.dumps({**ARTICLE, "article_body": {"html": None}}),
           json.dumps({**ARTICLE, "article_body": "text"})]
    records = list(enterprise_records(_dump([*bad, json.dumps(ARTICLE)])))
    assert all(isinstance(r, (ValueError, KeyError, TypeError, AttributeError))
               for r in records[:-1])
    assert len(records) == len(bad) + 1 and records[-1]["title"] == "Nile"
