"""Leakage survives invisible characters and homoglyphs (issue 23, H20): format characters
(category Cf) and TR39 confusables are folded on both sides before exact and near-duplicate
matching, while the reports keep the original text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.transforms.release.test_diff import write_release
from transforms.release.leakage import release_leakage, within_release_leakage
from transforms.release.normalize import jaccard, normalize_question, question_key, shingles

INVISIBLE = ("\u200b", "\u00ad", "\u2060", "\ufeff")
HOMOGLYPHS = {"a": "\u0430", "o": "\u03bf", "e": "\u0435", "c": "\u0441", "p": "\u0440",
              "i": "\u0456", "s": "\u0455", "h": "\u04bb", "y": "\u0443", "x": "\u0445"}

PLAIN = ["who wrote the declaration of independence",
         "what is the capital of australia",
         "how many bones are in the human body",
         "when did the berlin wall fall",
         "who discovered penicillin",
         "東京タワーの高さは何メートルですか"]

# genuinely different questions: none may be reported against PLAIN
CONTROL = ["who signed the treaty of versailles",
           "what is the population of austria",
           "how many moons does jupiter have",
           "why is the sky blue",
           "スカイツリーはどこにありますか",
           "日本の首都はどこですか",
           "富士山の高さは何メートルですか"]


def _invisible(text: str) -> str:
    """One of the four invisible characters after every other character."""
    return "".join(c + INVISIBLE[i % 4] if i % 2 else c for i, c in enumerate(text))


def _homoglyphs(text: str) -> str:
    return "".join(HOMOGLYPHS.get(c, c) for c in text)


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" if c == " " else c
                   for c in text)


def _math_bold(text: str) -> str:
    return "".join(chr(0x1D41A + ord(c) - 97) if "a" <= c <= "z" else c for c in text)


def _obfuscated() -> list[tuple[str, str]]:
    return [("t0", _invisible(PLAIN[0])), ("t1", _homoglyphs(PLAIN[1]).upper()),
            ("t2", _fullwidth(PLAIN[2])), ("t3", _math_bold(PLAIN[3])),
            ("t4", _invisible(_homoglyphs(PLAIN[4]))), ("t5", _invisible(PLAIN[5]))]


def _row(row_id: str, question: str) -> dict[str, Any]:
    return {"id": row_id, "question": question, "document_id": f"d-{row_id}"}


def test_invisible_characters_and_homoglyphs_keep_the_key():
    for plain, (_, hidden) in zip(PLAIN, _obfuscated(), strict=True):
        assert hidden != plain
        assert question_key(hidden) == question_key(plain), hidden
    assert normalize_question(_invisible("Who wrote Hamlet?")) == "who wrote hamlet"
    assert len({question_key(q) for q in PLAIN + CONTROL}) == len(PLAIN) + len(CONTROL)


def test_near_duplicates_are_measured_on_the_keys():
    plain = "who plays the voice of homer simpson"
    hidden = _invisible(_homoglyphs("who played the voice of homer simpson"))
    similarity = jaccard(shingles(question_key(plain)), shingles(question_key(hidden)))
    assert similarity >= 0.8


@pytest.fixture()
def obfuscated_release(tmp_path: Path) -> tuple[Path, Path]:
    release = write_release(tmp_path / "r", "1.0.0", {
        "train": [_row(f"c{i}", q) for i, q in enumerate(CONTROL)] + [_row("p0", PLAIN[0])],
        "test": [_row(i, q) for i, q in _obfuscated()]
        + [_row("t6", _homoglyphs(_invisible("who plays the voice of homer simpson")))],
    }, dataset="hostile")
    external = tmp_path / "eval.jsonl"
    external.write_text("".join(json.dumps({"id": f"e{i}", "question": q}) + "\n" for i, q in
                                enumerate(PLAIN + ["who played the voice of homer simpson"])),
                        encoding="utf-8")
    return release, external


def test_release_leakage_finds_obfuscated_test_questions(obfuscated_release):
    release, external = obfuscated_release
    found = release_leakage(str(release), [str(external)], examples=10)["external"][0]
    exact = found["exact"]
    assert exact["by_table"] == {"test": 6, "train": 1}
    assert [e["id"] for e in exact["examples"]] == ["p0", "t0", "t1", "t2", "t3", "t4", "t5"]
    hidden = dict(_obfuscated())
    for example in exact["examples"]:  # reports keep the original text
        if example["table"] == "test":
            assert example["question"] == hidden[example["id"]]
    near = found["near"]
    assert [(e["id"], e["external_id"]) for e in near["examples"]] == [("t6", "e6")]
    assert near["rows"] == 1  # no control question is near anything


def test_within_release_finds_an_obfuscated_copy(obfuscated_release):
    release, _ = obfuscated_release
    questions = within_release_leakage(str(release))["questions"]
    assert (questions["count"], questions["rows"], questions["pairs"]) == (
        1, 2, {"train/test": 1})
    example = questions["examples"][0]
    assert example["question"] == PLAIN[0]  # readable, not the skeleton
    assert [r["question"] for r in example["rows"]] == [PLAIN[0], _invisible(PLAIN[0])]
