"""NQ and JNQ annotation figures on hand-built annotated examples with known answers."""

from __future__ import annotations

import gzip
import json

import pytest

from transforms.metrics.annotation_quality import (
    MU_BINS,
    jnq_quality,
    long_answer_type,
    nq_quality,
    quality_tables_markdown,
)

# A paragraph [0, 5), a table [5, 12) with a row [6, 11), a list [12, 18) with an item
# [13, 17), a paragraph [18, 22), a definition list [22, 25) and a <Div> [25, 27).
_TOKENS = ["<P>", "Alpha", "beta", "gamma", "</P>", "<Table>", "<Tr>", "<Td>", "one", "</Td>",
           "</Tr>", "</Table>", "<Ul>", "<Li>", "x", "y", "</Li>", "</Ul>", "<P>", "delta",
           "epsilon", "</P>", "<Dl>", "<Dd>", "</Dl>", "<Div>", "</Div>"]
_CANDIDATES = [(0, 5), (5, 12), (6, 11), (12, 18), (13, 17), (18, 22), (22, 25), (25, 27)]


def _annotation(candidate: int = -1, shorts: tuple[tuple[int, int], ...] = (),
                yes_no: str = "NONE") -> dict:
    start, end = _CANDIDATES[candidate] if candidate >= 0 else (-1, -1)
    return {"annotation_id": 1,
            "long_answer": {"start_token": start, "end_token": end, "start_byte": start,
                            "end_byte": end, "candidate_index": candidate},
            "short_answers": [{"start_token": s, "end_token": e, "start_byte": s,
                               "end_byte": e} for s, e in shorts],
            "yes_no_answer": yes_no}


def _example(example_id: int, annotations: list[dict]) -> dict:
    return {"example_id": example_id, "question_text": "q",
            "document_tokens": [{"token": t, "html_token": t.startswith("<"),
                                 "start_byte": i, "end_byte": i + 1}
                                for i, t in enumerate(_TOKENS)],
            "long_answer_candidates": [{"start_token": s, "end_token": e, "start_byte": s,
                                        "end_byte": e, "top_level": True}
                                       for s, e in _CANDIDATES],
            "annotations": annotations}


def _examples() -> list[dict]:
    return [
        _example(1, [_annotation(0, ((1, 2),))]),                        # 1-way long + short
        _example(2, [_annotation()]),                                     # 1-way null
        _example(3, [_annotation(0, ((1, 3),)), _annotation(0), _annotation(0),
                     _annotation(5), _annotation()]),                     # mu 4/5
        _example(4, [_annotation(1), _annotation(3), _annotation(4, yes_no="YES"),
                     _annotation(), _annotation()]),                      # mu 3/5
        _example(5, [_annotation(), _annotation()]),                      # 2-way, mu 0
        _example(6, []),                                                  # not annotated
    ]


def test_nq_counts_and_ways() -> None:
    quality = nq_quality(_examples())
    assert quality["examples"] == 6
    assert quality["annotations"] == 14
    assert quality["ways"] == {0: 1, 1: 2, 2: 1, 5: 2}


def test_nq_long_and_short_answer_shares() -> None:
    quality = nq_quality(_examples())
    assert quality["long_answer_share"] == pytest.approx(8 / 14)
    assert quality["short_answer_share"] == pytest.approx(3 / 14)  # 2 spans + 1 YES
    assert quality["one_way"] == {"examples": 2, "long_answer_share": 0.5,
                                  "short_answer_share": 0.5}
    assert quality["yes_no"] == {"YES": 1, "NO": 0}


def test_nq_long_answer_types() -> None:
    quality = nq_quality(_examples())
    assert quality["long_answer_types"] == {"paragraph": 5, "table": 1, "table_row": 0,
                                            "list": 1, "list_item": 1, "other": 0}
    more = nq_quality([_example(9, [_annotation(2), _annotation(6), _annotation(7)])])
    assert more["long_answer_types"] == {"paragraph": 0, "table": 0, "table_row": 1,
                                         "list": 1, "list_item": 0, "other": 1}


def test_long_answer_type_of_tokens() -> None:
    tokens = [{"token": t} for t in ("<Ol>", "<Dt>", "<Dd>", "<Li>", "<Tr>", "word")]
    assert [long_answer_type(tokens, i) for i in range(6)] == [
        "list", "list_item", "list_item", "list_item", "table_row", "other"]
    assert long_answer_type(tokens, 6) == "other"


def test_nq_mu_histogram_over_k_way_examples() -> None:
    quality = nq_quality(_examples())
    assert quality["k_way_examples"] == 3
    assert quality["mu_histogram"] == {"0.0-0.2": 1, "0.2-0.4": 0, "0.4-0.6": 0,
                                       "0.6-0.8": 1, "0.8-1.0": 1}


@pytest.mark.parametrize(("non_null", "ways", "label"), [
    (0, 5, "0.0-0.2"), (1, 5, "0.2-0.4"), (2, 5, "0.4-0.6"), (3, 5, "0.6-0.8"),
    (4, 5, "0.8-1.0"), (5, 5, "0.8-1.0"), (4, 25, "0.0-0.2"), (5, 25, "0.2-0.4"),
    (1, 2, "0.4-0.6")])
def test_mu_bin_edges(non_null: int, ways: int, label: str) -> None:
    annotations = [_annotation(0)] * non_null + [_annotation()] * (ways - non_null)
    histogram = nq_quality([_example(1, annotations)])["mu_histogram"]
    assert histogram == {b: int(b == label) for b in MU_BINS}


def test_nq_top_long_answer_coverage() -> None:
    coverage = nq_quality(_examples())["top_long_answer_coverage"]
    # Example 3: 3 of 4 non-null on candidate 0, 4 of 4 for the top two; example 4: 1 and 2
    # of 3. 1-way examples and examples without a non-null answer are left out.
    assert coverage["top1"] == pytest.approx(4 / 7)
    assert coverage["top2"] == pytest.approx(6 / 7)


def test_nq_quality_of_nothing() -> None:
    quality = nq_quality([])
    assert quality["examples"] == 0 and quality["long_answer_share"] == 0.0
    assert quality["top_long_answer_coverage"] == {"top1": 0.0, "top2": 0.0}


@pytest.mark.realdata
def test_nq_quality_on_real_5_way_dev(shared_data) -> None:
    path = shared_data / "nq" / "nq_dev_original_first3.jsonl.gz"
    with gzip.open(path, "rt") as handle:
        quality = nq_quality(json.loads(line) for line in handle)
    assert quality["ways"] == {5: 3}
    assert quality["long_answer_share"] == pytest.approx(7 / 15)
    assert quality["short_answer_share"] == pytest.approx(5 / 15)
    assert quality["long_answer_types"]["paragraph"] == 6
    assert quality["long_answer_types"]["table"] == 1
    assert quality["mu_histogram"] == {"0.0-0.2": 1, "0.2-0.4": 0, "0.4-0.6": 1,
                                       "0.6-0.8": 0, "0.8-1.0": 1}
    assert quality["top_long_answer_coverage"] == {"top1": pytest.approx(6 / 7),
                                                   "top2": pytest.approx(1.0)}


def _paragraph(pid: int, label: str, kind: str = "none", span: tuple[int, int] = (-1, -1),
               yes_no: str = "NONE") -> dict:
    return {"paragraph_id": pid, "label": label, "yes_votes": 8, "votes": 10,
            "short_answer_type": kind, "span_start": span[0], "span_end": span[1],
            "span_text": "x" * max(0, span[1] - span[0]), "yes_no_answer": yes_no}


def _row(question: str, texts: list[str], annotations: list[dict], yes_no: bool = False) -> dict:
    gold = [a["paragraph_id"] for a in annotations if a["label"] == "EXIST"]
    return {"id": question, "question": question, "variant": "jnq",
            "paragraphs": [{"id": i, "text": t} for i, t in enumerate(texts)],
            "candidate_paragraph_ids": list(range(min(5, len(texts)))),
            "is_yes_no_question": yes_no, "num_annotators": 10,
            "annotations": annotations, "gold_paragraph_ids": gold}


def _rows() -> list[dict]:
    return [
        _row("abcd", ["0123456789", "01234", "", "0123456789012345", "x", "outside"],
             [_paragraph(0, "EXIST", "span", (2, 5)), _paragraph(1, "EXIST", "span", (0, 2)),
              _paragraph(2, "AMBIGUOUS"), _paragraph(3, "NONE"), _paragraph(4, "NONE")]),
        _row("ab", ["aaaa", "bb"],
             [_paragraph(0, "EXIST", "yes_no", yes_no="YES"), _paragraph(1, "AMBIGUOUS")],
             yes_no=True),
        _row("abcdefgh", ["a"], [_paragraph(0, "NONE")]),
        _row("abcdef", ["a", "b", "c", "d", "e"],
             [_paragraph(i, "EXIST", "none") for i in range(5)]),
    ]


def test_jnq_table2_paragraphs_by_label_and_short_answer() -> None:
    quality = jnq_quality(_rows())
    assert quality["table2"] == {
        "EXIST": {"span": 2, "yes_no": 1, "none": 5},
        "AMBIGUOUS": {"span": 0, "yes_no": 0, "none": 2},
        "NONE": {"span": 0, "yes_no": 0, "none": 3},
    }
    assert quality["yes_no"] == {"YES": 1, "NO": 0}
    assert quality["questions"] == 4 and quality["yes_no_questions"] == 1


def test_jnq_table3_long_answers_per_question() -> None:
    assert jnq_quality(_rows())["table3"] == {0: 1, 1: 1, 2: 1, 3: 0, 4: 0, 5: 1}


def test_jnq_table3_counts_exist_labels_without_gold_ids() -> None:
    row = _rows()[0]
    del row["gold_paragraph_ids"]
    assert jnq_quality([row])["table3"][2] == 1


def test_jnq_table1_lengths() -> None:
    lengths = jnq_quality(_rows())["table1"]
    assert lengths["question"] == {"count": 4, "mean": 5.0, "median": 5.0}
    # Candidates only (the sixth paragraph "outside" is not one): 10, 5, 0, 16, 1 / 4, 2 /
    # 1 / 1 x 5.
    paragraph_chars = [10, 5, 0, 16, 1, 4, 2, 1, 1, 1, 1, 1, 1]
    assert lengths["paragraph"]["count"] == len(paragraph_chars)
    assert lengths["paragraph"]["mean"] == pytest.approx(sum(paragraph_chars) / 13)
    assert lengths["paragraph"]["median"] == 1.0
    assert lengths["span"] == {"count": 2, "mean": 2.5, "median": 2.5}


def test_nq_markdown_puts_the_paper_beside_ours() -> None:
    text = quality_tables_markdown("nq", nq_quality(_examples()))
    assert "| 1-way examples with a long answer | 50.0% | 49% (§3.3) |" in text
    assert "| 1-way examples with a short answer | 50.0% | 36% (§3.3) |" in text
    assert "| All annotations with a long answer | 57.1% |  |" in text
    assert "| All annotations with a short answer | 21.4% |  |" in text
    assert "57.1% | 83% (§4.4) |" in text and "85.7% | 96% (§4.4) |" in text
    assert "| table_row | 0 | 0.0% |" in text
    assert "| 0.8-1.0 | 1 | 33.3% |" in text
    assert "not annotated: 1, 1-way: 2, 2-way: 1, 5-way: 2" in text


def test_jnq_markdown_tables() -> None:
    text = quality_tables_markdown("jboolq", jnq_quality(_rows()))
    assert "| EXIST | 2 | 1 | 5 | 8 |" in text
    assert "| 5 | 1 | 25.0% |" in text
    assert "| span | 2 | 2.5 | 2.5 |" in text
    with pytest.raises(ValueError):
        quality_tables_markdown("nlquad", {})
