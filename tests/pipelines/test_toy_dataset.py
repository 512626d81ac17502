"""A dataset declared only in tests (``tests/pipelines/toy/spec.py``) gets everything from
its spec: a command line, the Python API, Flex Template metadata, a verified release with a
card and Croissant metadata, and a browser site."""

from __future__ import annotations

import inspect
import json

import pytest

from pipelines import api, flex_templates, release
from pipelines.cli.spec_runner import entry_points, run_options
from tests.conftest import TEST_RUNNER
from tests.pipelines.toy.spec import SPEC, ToyOptions
from transforms.core.counters import Counter, Counts, UnknownCounterError

LINES = [{"id": f"q{i}", "question": text} for i, text in enumerate(
    ["who wrote the toy", "why", "what is the capital of toy land", "toy?", "when was it made"])]


@pytest.fixture
def toy_input(tmp_path):
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    return path


def test_the_command_line_builds_a_verified_release_with_card_and_croissant(
        toy_input, tmp_path, capsys):
    build_parser, run, main, _ = entry_points(SPEC)
    assert "--min-words" in build_parser().format_help()
    assert main(["--input", str(toy_input), "--output", str(tmp_path / "r"), TEST_RUNNER]) == 0
    out = capsys.readouterr().out
    assert "toy 0.1.0 written to" in out and "kept: 3 of 5" in out
    version = tmp_path / "r" / "toy" / "0.1.0"
    assert release.main(["verify", str(version)]) == 0
    manifest = json.loads((version / "dataset_info.json").read_text())
    assert sum(manifest["rows_per_split"].values()) == 3
    assert manifest["options"]["split_ratios"] == {"train": 0.8, "test": 0.2}
    assert manifest["options"]["command"] == "python -m pipelines.build_toy"
    assert "Read 5, kept 3." in (version / "README.md").read_text()
    croissant = json.loads((version / "croissant.json").read_text())
    assert croissant["name"] and croissant["recordSet"]
    stats = json.loads((version / "stats.json").read_text())
    assert SPEC.counters.undeclared(stats["counts"]) == []
    assert main(["--input", str(toy_input), "--min-words", "0"]) == 2
    assert "--min-words" in capsys.readouterr().err


def test_the_api_takes_keywords_or_the_typed_options(toy_input, tmp_path):
    result = api.build(SPEC, input=str(toy_input), output=str(tmp_path / "a"), min_words=1,
                       runner="FnApiRunner")
    assert sum(result["manifest"]["rows_per_split"].values()) == 5
    typed = run_options(SPEC, ToyOptions(input=str(toy_input), output=str(tmp_path / "b")),
                        ["--runner=FnApiRunner"])
    assert sum(typed["manifest"]["rows_per_split"].values()) == 3
    with pytest.raises(api.UsageError, match="unknown keyword"):
        api.build(SPEC, input=str(toy_input), min_wordz=2)


def test_flex_template_metadata_comes_from_the_options():
    metadata = flex_templates.metadata_of(SPEC)
    names = [parameter["name"] for parameter in metadata["parameters"]]
    assert names[:5] == ["output", "version", "overwrite", "skip_existing", "allow_empty"]
    assert {"input", "min_words", "split_ratios"} <= set(names)
    min_words = next(p for p in metadata["parameters"] if p["name"] == "min_words")
    assert min_words["helpText"] == "shortest question kept, in words"


def test_the_browser_renders_the_release(toy_input, tmp_path):
    entry_points(SPEC).run(["--input", str(toy_input), "--output", str(tmp_path / "r"),
                            TEST_RUNNER])
    site = release.browse(str(tmp_path / "r" / "toy" / "0.1.0"), str(tmp_path / "site"))
    assert (tmp_path / "site" / "index.html").is_file()
    assert site["renderer"] == "generic" and site["examples"]["entries"] == 3
    assert "what is the capital of toy land" in "".join(
        path.read_text() for path in (tmp_path / "site").rglob("*.html"))


def test_the_api_signature_is_generated_from_the_options():
    from pipelines.cli.spec_parser import api_signature

    signature = api_signature(SPEC)
    assert signature.parameters["min_words"].default == 3
    assert signature.parameters["min_words"].kind is inspect.Parameter.KEYWORD_ONLY
    assert signature.parameters["split_ratios"].default == "train=0.8,test=0.2"


def test_reading_an_undeclared_counter_fails():
    counts = Counts({"questions": {"read": 2}}, SPEC.counters)
    assert counts[Counter("questions", "read")] == 2
    assert counts[Counter("questions", "kept")] == 0
    with pytest.raises(UnknownCounterError):
        counts[Counter("questions", "raed")]


def test_a_whole_stage_is_read_only_when_every_count_is_declared():
    counts = Counts({"questions": {"read": 2, "kept": 1}}, SPEC.counters)
    assert counts.fired("questions") == {"kept": 1, "read": 2}
    with pytest.raises(UnknownCounterError):
        Counts({"questions": {"read": 2, "raed": 1}}, SPEC.counters).fired("questions")
