"""The training-ready configs (issue 28 §5): NQ ``simplified`` equals what the official
``natural_questions.simplify_nq_data`` writes from the release's own original-format files;
annotated JNQ's ``squad_v2`` and annotated JBoolQ's ``boolq`` load with ``datasets`` and hold
the pairs the annotations define, with exact character offsets."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines import annotate
from tests.conftest import TEST_RUNNER
from transforms.jnq.labels import as_names
from transforms.release import verify_release

datasets = pytest.importorskip("datasets")
pytest.importorskip("natural_questions")


def official_simplified(original_split_dir: Path, tmp_path: Path) -> list[dict]:
    """What ``python -m natural_questions.simplify_nq_data`` writes for one split directory
    (run on a copy: it writes into the directory it reads)."""
    copy = tmp_path / original_split_dir.name
    shutil.copytree(original_split_dir, copy)
    subprocess.run([sys.executable, "-m", "natural_questions.simplify_nq_data",
                    f"--data_dir={copy}"], check=True, capture_output=True)
    with gzip.open(copy / f"simplified-nq-{copy.name}.jsonl.gz", "rt",
                   encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def ours(release: Path, config: str, split: str) -> list[dict]:
    return pq.read_table(release / config / split).to_pylist()


def assert_simplified_equals_official(release: Path, tmp_path: Path) -> int:
    compared = 0
    for split_dir in sorted((release / "nq_original").iterdir()):
        theirs = official_simplified(split_dir, tmp_path / "official")
        assert ours(release, "simplified", split_dir.name) == theirs, split_dir.name
        compared += len(theirs)
    return compared


@pytest.mark.parametrize("kind", ["nq", "nq_annotated"])
def test_simplified_equals_official_simplify_nq_data(sample_releases, kind, tmp_path):
    release = sample_releases[kind]
    assert assert_simplified_equals_official(release, tmp_path) > 0
    if kind == "nq_annotated":
        rows = [r for split in ("train", "dev", "test")
                for r in ours(release, "simplified", split)]
        assert any(r["annotations"] for r in rows)


@pytest.mark.parametrize("kind", ["nq", "nq_annotated"])
def test_simplified_loads_with_datasets_and_is_on_the_card(sample_releases, kind):
    release = sample_releases[kind]
    loaded = datasets.load_dataset(str(release), "simplified")
    for split, name in (("train", "train"), ("dev", "validation"), ("test", "test")):
        rows = ours(release, "simplified", split)
        if rows:
            assert loaded[name].to_list() == rows
    card = (release / "README.md").read_text(encoding="utf-8")
    assert "config_name: simplified" in card
    assert "`natural_questions.simplify_nq_data` writes" in card
    assert "`[start_token, end_token)` into `document_text.split(\" \")`" in card
    check = verify_release(str(release), deep=True)
    assert check.ok, check.problems
    manifest = json.loads((release / "dataset_info.json").read_text())
    assert any(name.startswith("simplified/") for name in manifest["files"])


def test_squad_v2_pairs_of_annotated_jnq(sample_releases):
    release = sample_releases["jnq_annotated"]
    loaded = datasets.load_dataset(str(release), "squad_v2")
    assert set(loaded) <= {"train", "validation", "test"}
    rows = [row for split in loaded.values() for row in split.to_list()]
    assert rows
    assert list(rows[0]) == ["id", "title", "context", "question", "answers"]
    expected = _expected_squad_pairs(release)
    assert {r["id"]: r for r in rows} == expected
    answerable = [r for r in rows if r["answers"]["text"]]
    assert answerable and len(answerable) < len(rows)  # both kinds occur in the sample
    for row in rows:
        for text, start in zip(row["answers"]["text"], row["answers"]["answer_start"],
                               strict=True):
            assert row["context"][start:start + len(text)] == text
    card = (release / "README.md").read_text(encoding="utf-8")
    assert "config_name: squad_v2" in card and "a SQuAD 2.0 like task" in card
    field_rows = [line for line in card.splitlines() if line.startswith("| `answers` |")]
    assert field_rows and "empty for a NONE paragraph" in field_rows[0]


def _expected_squad_pairs(release: Path) -> dict[str, dict]:
    """The pairs the annotated rows define: kept non-yes/no questions, EXIST paragraphs with
    a span (answerable) and NONE paragraphs (unanswerable)."""
    expected = {}
    for split in ("train", "dev", "test"):
        for row in map(as_names, ours(release, "", split) if (release / split).exists()
                       else []):
            texts = {p["id"]: p["text"] for p in row["paragraphs"]}
            for a in row["annotations"]:
                if row["is_yes_no_question"]:
                    continue
                if a["label"] == "EXIST" and a["short_answer_type"] == "span":
                    answers = {"text": [a["span_text"]], "answer_start": [a["span_start"]]}
                elif a["label"] == "NONE":
                    answers = {"text": [], "answer_start": []}
                else:
                    continue
                expected[f"{row['id']}_{a['paragraph_id']}"] = {
                    "id": f"{row['id']}_{a['paragraph_id']}", "title": row["document_title"],
                    "context": texts[a["paragraph_id"]], "question": row["question"],
                    "answers": answers}
    return expected


@pytest.fixture(scope="module")
def jboolq_annotated(sample_releases, tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("jboolq_annotated")
    votes = base / "votes.jsonl"
    assert annotate.main(["simulate", "--release", str(sample_releases["jboolq"]), "--out",
                          str(votes), "--seed", "7"]) == 0
    result = annotate.run(["import", "--dataset", "jboolq", "--input",
                           str(sample_releases["jboolq"]), "--votes", str(votes), "--output",
                           str(base / "releases"), TEST_RUNNER])
    return Path(result["path"])


# google/boolq's features, as its hub card declares them (huggingface.co/datasets/google/boolq,
# README.md dataset_info: question string, answer bool, passage string), written out because
# the tests never touch the network
GOOGLE_BOOLQ = {"question": datasets.Value("string"), "answer": datasets.Value("bool"),
                "passage": datasets.Value("string")}


def _expected_boolq(release: Path) -> tuple[dict[str, dict], dict[str, int]]:
    """The ``boolq`` rows the annotated rows define (EXIST paragraphs answered YES or NO)
    and, per split, the EXIST paragraphs whose answer is NONE (left out)."""
    expected, none = {}, {}
    for split in ("train", "dev", "test"):
        none[split] = 0
        for row in ours(release, "", split) if (release / split).exists() else []:
            texts = {p["id"]: p["text"] for p in row["paragraphs"]}
            for a in as_names(row)["annotations"]:
                if a["label"] != "EXIST":
                    continue
                if a["yes_no_answer"] == "NONE":
                    none[split] += 1
                    continue
                key = f"{row['id']}_{a['paragraph_id']}"
                expected[key] = {"question": row["question"],
                                 "answer": a["yes_no_answer"] == "YES",
                                 "passage": texts[a["paragraph_id"]], "id": key,
                                 "title": row["document_title"]}
    return expected, none


def test_boolq_has_exactly_google_boolqs_features_first(jboolq_annotated):
    loaded = datasets.load_dataset(str(jboolq_annotated), "boolq")
    assert set(loaded) == {"train", "validation", "test"}  # every split has rows
    for split in loaded.values():
        assert split.num_rows > 0
        features = split.features
        assert list(features)[:3] == ["question", "answer", "passage"]
        assert datasets.Features({k: features[k] for k in list(features)[:3]}) == \
            datasets.Features(GOOGLE_BOOLQ)
        assert features == datasets.Features({**GOOGLE_BOOLQ, "id": datasets.Value("string"),
                                              "title": datasets.Value("string")})
        assert {type(v) for v in split["answer"]} == {bool}
    # what a BoolQ training script does: cast to google/boolq's features, nothing changes
    train = loaded["train"]
    cast = train.select_columns(list(GOOGLE_BOOLQ)).cast(datasets.Features(GOOGLE_BOOLQ))
    assert cast.to_list() == train.select_columns(list(GOOGLE_BOOLQ)).to_list()


def test_boolq_pairs_of_annotated_jboolq(jboolq_annotated):
    release = jboolq_annotated
    loaded = datasets.load_dataset(str(release), "boolq")
    rows = [row for split in loaded.values() for row in split.to_list()]
    assert rows
    assert list(rows[0]) == ["question", "answer", "passage", "id", "title"]
    expected, none = _expected_boolq(release)
    assert {r["id"]: r for r in rows} == expected
    assert {r["answer"] for r in rows} == {True, False}  # YES and NO both occur
    # NONE pairs: left out of the config, kept in the main table, counted on the card
    assert sum(none.values()) > 0
    stats = json.loads((release / "stats.json").read_text(encoding="utf-8"))
    assert stats["training_configs"]["boolq"]["left_out"]["none_answer"] == none
    assert stats["training_configs"]["boolq"]["rows"] == {
        split: pq.read_table(release / "boolq" / split).num_rows for split in none}
    card = (release / "README.md").read_text(encoding="utf-8")
    assert "config_name: boolq" in card and "JBoolQ §4" in card
    per_split = ", ".join(f"{split} {n}" for split, n in none.items())
    assert f"Left out for a NONE answer: {sum(none.values())} pairs ({per_split})." in card
    field_rows = [line for line in card.splitlines() if line.startswith("| `passage` |")]
    assert field_rows and "a candidate labeled EXIST" in field_rows[0]
    answer_rows = [line for line in card.splitlines() if line.startswith("| `answer` |")]
    assert any("left out of this config" in line for line in answer_rows)
    check = verify_release(str(release), deep=True)
    assert check.ok, check.problems


def test_every_split_of_the_annotated_samples_has_rows(sample_releases, jboolq_annotated):
    """The bundled JNQ sample gives annotated JNQ and JBoolQ releases whose every split, of the
    main table and of the training config, has rows (issue 38 §9: dev and test were empty or
    one question before)."""
    for release, config in ((sample_releases["jnq_annotated"], "squad_v2"),
                            (jboolq_annotated, "boolq")):
        for table in ("", config):
            rows = {split: pq.read_table(release / table / split).num_rows
                    for split in ("train", "dev", "test")}
            assert min(rows.values()) > 0, (release.parent.name, table, rows)
        loaded = datasets.load_dataset(str(release), config)
        assert set(loaded) == {"train", "validation", "test"}
