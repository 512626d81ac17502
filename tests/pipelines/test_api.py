"""``pipelines.api``: keyword calls build what the command line builds, fail as it does (as
exceptions, never ``SystemExit``), and ``load_release`` verifies before it reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines import api, build_nlquad, evaluate, release
from pipelines.api import (
    DamagedReleaseError,
    NoInputError,
    NotAReleaseError,
    UsageError,
    load_release,
)
from tests.conftest import PROJECT_ROOT, TIMESTAMPED

PAGES = str(PROJECT_ROOT / "pipelines" / "samples" / "nlquad" / "pages" / "*.html")
RATIOS = {"train": 0.8, "dev": 0.1, "test": 0.1}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The same NLQuAD release built with keywords and with a command line."""
    root = tmp_path_factory.mktemp("api")
    result = api.build_nlquad(source="html", input=PAGES, output=root / "kw",
                              runner="FnApiRunner", export_squad=True, split_ratios=RATIOS,
                              overwrite=None)
    code = build_nlquad.main(["--runner=FnApiRunner", "--source", "html", "--input", PAGES,
                              "--export-squad", "--split-ratios", "train=0.8,dev=0.1,test=0.1",
                              "--output", str(root / "cli")])
    assert code == 0
    return result, Path(result["path"]), root / "cli" / "nlquad" / "1.0.0"


def _manifest(path: Path) -> dict:
    return json.loads((path / "dataset_info.json").read_text(encoding="utf-8"))


def test_keywords_build_the_release_the_command_line_builds(built):
    result, by_keywords, by_cli = built
    assert result["manifest"] == _manifest(by_keywords)
    assert result["manifest"]["rows_per_split"] == _manifest(by_cli)["rows_per_split"]
    kw_files, cli_files = _manifest(by_keywords)["files"], _manifest(by_cli)["files"]
    assert set(kw_files) == set(cli_files)
    assert {"squad/train.json", "squad/dev.json", "squad/test.json"} <= set(kw_files)
    for name in kw_files:  # card and Croissant name the build time (and the card --output)
        if name not in TIMESTAMPED:
            assert kw_files[name] == cli_files[name], name
    kw_options, cli_options = _manifest(by_keywords)["options"], _manifest(by_cli)["options"]
    kw_output, cli_output = kw_options.pop("output"), cli_options.pop("output")
    assert kw_output != cli_output
    kw_line, cli_line = kw_options.pop("command_line"), cli_options.pop("command_line")
    assert [cli_output if word == kw_output else word for word in kw_line] == cli_line
    assert kw_options == cli_options


@pytest.mark.parametrize("keywords, message", [
    ({"ouput": "x"}, "build_nlquad() got unknown keyword(s): 'ouput' (did you mean 'output'?)"),
    ({"runer": "FnApiRunner"}, "'runer' (did you mean 'runner'?)"),
    ({"help": True}, "unknown keyword(s): 'help'"),
    ({"from": 2016, "from_year": 2017}, "keywords from and from_year name the same option"),
    ({"export_squad": [1, 2]}, "build_nlquad(): keyword export_squad takes one value, got [1, 2]"),
])
def test_unknown_or_clashing_keywords_raise_before_any_work(tmp_path, keywords, message):
    with pytest.raises(UsageError) as raised:
        api.build_nlquad(output=tmp_path / "out", **keywords)
    assert message in str(raised.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("keywords, argv", [
    ({"source": "htm"}, ["--source", "htm"]),
    ({"source": "html"}, ["--source", "html"]),
    ({"split_ratios": "train=x"}, ["--split-ratios", "train=x"]),
    ({"overwrite": "maybe"}, ["--overwrite=maybe"]),
    ({"paragraph_separator": "x"}, ["--paragraph-separator", "x"]),
    ({"runner": "DirectRuner"}, ["--runner=DirectRuner"]),
    ({"max_rows_per_shard": "many"}, ["--max-rows-per-shard", "many"]),
])
def test_bad_values_raise_the_command_lines_message(tmp_path, capsys, keywords, argv):
    output = tmp_path / "out"
    with pytest.raises(UsageError) as raised:
        api.build_nlquad(output=output, **keywords)
    assert build_nlquad.main([*argv, "--output", str(output)]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == f"error: {raised.value}"
    assert not output.exists()


def test_missing_input_and_exiting_checks_are_typed(tmp_path):
    with pytest.raises(NoInputError, match="no input matches"):
        api.build_nlquad(source="html", input=tmp_path / "none" / "*.html", output=tmp_path)
    with pytest.raises(UsageError, match="--source enterprise needs --input GLOB"):
        api.build_search_index(source="enterprise", output=tmp_path)


def test_keywords_lists_each_pipelines_options():
    described = api.keywords("build_nlquad")
    assert {"source", "input", "output", "split_ratios", "from_year", "export_squad"} <= \
        set(described)
    assert "'train=0.8,dev=0.1,test=0.1'" in described["split_ratios"]
    assert "workers" in api.keywords("annotate", "import")
    with pytest.raises(UsageError, match="did you mean 'build_nq'"):
        api.keywords("build_nqq")


def test_annotate_and_evaluate_take_keywords_too(built, tmp_path, capsys):
    with pytest.raises(UsageError, match="unknown command 'exprt' \\(did you mean 'export'"):
        api.annotate("exprt")
    with pytest.raises(UsageError, match="^the following arguments are required: --release"):
        api.annotate("export", out=tmp_path / "tasks")
    with pytest.raises(UsageError, match="annotate\\('simulate'\\) got unknown keyword"):
        api.annotate("simulate", release=tmp_path, out=tmp_path / "v.jsonl", runner="x")
    _, path, _ = built
    dev = pq.read_table(path / "dev").to_pylist()
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps({row["id"]: row["answer_text"] for row in dev}))
    scores = api.evaluate("nlquad", gold=path.parent, predictions=predictions, split="dev")
    assert evaluate.main(["nlquad", "--gold", str(path.parent), "--predictions",
                          str(predictions), "--split", "dev"]) == 0
    assert scores == json.loads(capsys.readouterr().out)
    with pytest.raises(UsageError, match="^--threshold applies to nq only$"):
        api.evaluate("nlquad", gold=path, predictions=predictions, threshold=2)
    with pytest.raises(UsageError, match="invalid choice: 'nqq'"):
        api.evaluate("nqq", gold=path, predictions=predictions)


def test_load_release_reads_every_split_in_release_order(built):
    _, path, _ = built
    tables = load_release(path.parent)  # the dataset directory: its LATEST version
    assert list(tables) == ["train", "dev", "test"]
    for split, table in tables.items():
        assert table.equals(pq.read_table(path / split))
    dev = load_release(path, split="validation", columns=["id", "question"])
    assert dev.column_names == ["id", "question"]
    assert dev.to_pylist() == tables["dev"].select(["id", "question"]).to_pylist()


@pytest.mark.parametrize("keywords, message", [
    ({"table": "defualt"}, "no table 'defualt' in .* \\(did you mean 'default'\\?\\); "
                           "choose from default"),
    ({"split": "tran"}, "no split 'tran' in table 'default' of .* \\(did you mean 'train'\\?\\); "
                        "choose from train, dev, test"),
    ({"columns": ["qestion"]}, "no column 'qestion' .* \\(did you mean 'question'\\?\\)"),
])
def test_load_release_names_a_bad_table_split_or_column(built, keywords, message):
    _, path, _ = built
    with pytest.raises(UsageError, match=message):
        load_release(path, **keywords)


def test_load_release_verifies_first(built, tmp_path):
    _, path, _ = built
    copy = tmp_path / "nlquad" / "1.0.0"
    shutil.copytree(path, copy)
    data = next((copy / "train").glob("*.parquet"))
    raw = bytearray(data.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    data.write_bytes(bytes(raw))
    with pytest.raises(DamagedReleaseError, match=f"train/{data.name}: sha256"):
        load_release(copy)
    report = api.verify_release(copy)
    assert not report["ok"] and report["problems"][0]["file"] == f"train/{data.name}"
    assert api.verify_release(path.parent)["ok"]
    with pytest.raises(NotAReleaseError):
        load_release(tmp_path)


def test_load_release_joins_the_shards_of_a_split(tmp_path):
    path = Path(api.build_nlquad(output=tmp_path, runner="FnApiRunner",
                                 max_rows_per_shard=10)["path"])
    assert len(list((path / "train").glob("*.parquet"))) > 1
    train = load_release(path, split="train")
    assert sorted(train.column("id").to_pylist()) == \
        sorted(pq.read_table(path / "train").column("id").to_pylist())


def test_load_release_reads_each_table_of_a_multi_table_release(tmp_path):
    path = Path(api.build_reqa(output=tmp_path, runner="FnApiRunner")["path"])
    questions = load_release(path)  # the config load_dataset(dir) loads
    assert list(questions) == ["questions"]
    candidates = load_release(path, table="candidates", split="candidates")
    assert candidates.equals(pq.read_table(path / "candidates"))
    assert questions["questions"].num_rows == _manifest(path)["rows_per_split"]["questions"]
    assert [entry["status"] for entry in api.list_releases(tmp_path)] == ["complete"]


def test_release_commands_take_keywords(monkeypatch, tmp_path):
    calls = []

    def fake_diff(old: str, new: str, columns: bool = True) -> dict:
        calls.append((old, new, columns))
        return {"ok": True}

    monkeypatch.setattr(release, "diff", fake_diff, raising=False)
    assert api.diff(tmp_path / "a", tmp_path / "b", columns=False) == {"ok": True}
    assert calls == [(str(tmp_path / "a"), str(tmp_path / "b"), False)]
    with pytest.raises(UsageError, match="did you mean 'columns' for 'colums'"):
        api.diff("a", "b", colums=False)
    assert calls == [(str(tmp_path / "a"), str(tmp_path / "b"), False)]


def test_browse_writes_the_site_and_refuses_unknown_keywords(built, tmp_path):
    result, _, _ = built
    site = api.browse(result["path"], out=tmp_path / "site", page_size=10)
    assert (tmp_path / "site" / "index.html").is_file()
    assert site["examples"]["entries"] > 0
    with pytest.raises(UsageError, match="page_sise"):
        api.browse(result["path"], out=tmp_path / "other", page_sise=10)
    assert not (tmp_path / "other").exists()


def test_typed_options_are_checked_like_the_command_line(tmp_path):
    from transforms.categories.spec import CategoriesOptions

    with pytest.raises(UsageError, match="--batch-size"):
        api.build(CategoriesOptions(batch_size=0, output=str(tmp_path)))
    with pytest.raises(UsageError, match="given twice"):
        api.build(CategoriesOptions(batch_size=8), batch_size=9)
    assert not any(tmp_path.iterdir())
    result = api.build(CategoriesOptions(output=str(tmp_path), version="9.9.9"),
                       runner="FnApiRunner")
    assert result["manifest"]["version"] == "9.9.9" and result["manifest"]["rows_per_split"]
