"""A refresh of NLQuAD (``--previous``) on the bundled sample and on a few small pages: carried
rows, new and removed captures, deduplication and boilerplate against carried documents, the
statistics of the whole release, and what is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipelines.build_nlquad import format_summary, main, run
from pipelines.release import main as release_main
from tests.conftest import PROJECT_ROOT, TEST_RUNNER
from tests.pipelines.refresh_checks import read_json as read
from tests.pipelines.refresh_checks import rows_by_id
from transforms.nlquad.sidecar import PREFIX
from transforms.nlquad.spec import SPEC
from transforms.release import run as run_module

SAMPLE = PROJECT_ROOT / "pipelines" / "samples" / "nlquad"
INDEX = [line.split("\t") for line in
         (SAMPLE / "index.tsv").read_text(encoding="utf-8").splitlines()[1:]]
NEW = "eraB_2019_uk-50123456.html"  # an article of its own: 2 questions
REMOVED = "eraB_2018_science-environment-43567890.html"  # 2 questions
KENT_2017 = "eraB_2017_uk-england-kent-40987654_capture-2017.html"  # nearer to publication
KENT_2019 = "eraB_2019_uk-england-kent-40987654_capture-2019.html"


def sample_pages(directory: Path, leave_out: set[str]) -> list[str]:
    """The sample's pages but ``leave_out``, with their index, as ``--source html`` inputs."""
    directory.mkdir()
    rows = [row for row in INDEX if row[0] not in leave_out]
    for name, _, _ in rows:
        shutil.copyfile(SAMPLE / "pages" / name, directory / name)
    (directory / "index.tsv").write_text(
        "file\turl\ttimestamp\n" + "".join("\t".join(row) + "\n" for row in rows),
        encoding="utf-8")
    return html_source(directory)


def html_source(directory: Path) -> list[str]:
    return ["--source", "html", "--input", str(directory / "*.html"),
            "--index", str(directory / "index.tsv")]


def build(root: Path, version: str, *argv: str) -> dict:
    return run([TEST_RUNNER, "--output", str(root), "--version", version, *argv])


def data_files(version_dir: Path) -> dict[str, bytes]:
    """The Parquet split files and the refresh sidecar, by release-relative name."""
    files = [*version_dir.glob("*/*.parquet"), *version_dir.glob(f"{PREFIX}*.jsonl")]
    return {str(p.relative_to(version_dir)): p.read_bytes() for p in sorted(files)}


def test_a_refresh_of_unchanged_captures_writes_the_full_rebuilds_files(tmp_path):
    root = tmp_path / "r"
    first = build(root, "1")
    refreshed = build(root, "2", "--previous", "auto")
    rebuilt = build(root, "3")
    one, two, three = (Path(result["path"]) for result in (first, refreshed, rebuilt))
    assert data_files(two) == data_files(three) == data_files(one)
    stats, full = refreshed["stats"], rebuilt["stats"]
    assert stats["lengths"] == full["lengths"]  # the whole release, carried rows included
    assert stats["question_prefixes"] == full["question_prefixes"]
    total = sum(first["manifest"]["rows_per_split"].values())
    refresh = stats["refresh"]
    assert (refresh["carried"], refresh["new"], refresh["recomputed"], refresh["removed"]) == (
        total, 0, 0, 0)
    assert refresh["changes"]["identical_rows"] is True
    counts = stats["counts"]
    kept = full["counts"]["documents"]["deduplicated"]  # every kept document is carried
    assert counts["carried"]["documents"] == kept
    assert refresh["inputs_carried"] == kept - full["counts"]["documents"]["without_questions"]
    # other captures of carried articles are not parsed either: they would lose to them
    losers = full["counts"]["dedup"]["duplicate_capture"]
    assert counts["dedup"]["duplicate_capture_of_carried"] == losers
    assert counts["pages"]["read"] == full["counts"]["pages"]["read"] - kept - losers
    assert "documents" not in counts and "questions" not in counts  # nothing extracted
    card = (two / "README.md").read_text(encoding="utf-8")
    assert "## Counts (this run's work)" in card and f"{kept} documents whose capture" in card
    assert "this run's work (carried documents were not fetched or parsed again)" in \
        format_summary(refreshed)
    assert release_main(["verify", str(two)]) == 0


def test_new_captures_are_processed_and_removed_ones_counted(tmp_path):
    root = tmp_path / "r"
    first = build(root, "1", *sample_pages(tmp_path / "v1", {NEW, KENT_2017}))
    second = build(root, "2", *sample_pages(tmp_path / "v2", {REMOVED}),
                   "--previous", "auto")
    before, after = rows_by_id(Path(first["path"])), rows_by_id(Path(second["path"]))
    new = {key for key, (_, row) in after.items() if row["capture_url"].endswith("uk-50123456")}
    gone = {key for key, (_, row) in before.items()
            if row["capture_url"].endswith("science-environment-43567890")}
    assert len(new) == 2 and len(gone) == 2
    assert set(after) == (set(before) - gone) | new
    for key in set(before) - gone:
        assert after[key] == before[key]  # same split, same values: carried byte for byte
    refresh = second["stats"]["refresh"]
    assert (refresh["carried"], refresh["new"], refresh["recomputed"], refresh["removed"]) == (
        len(before) - 2, 2, 0, 2)
    # a new capture of a carried article loses, although nearer to publication; so do the
    # AMP capture and the republished text, which lost in the previous build too
    kent = [row for _, row in after.values() if "kent-40987654" in row["capture_url"]]
    assert {row["capture_timestamp"] for row in kent} == {"20190903114407"}
    assert second["stats"]["counts"]["dedup"] == {"duplicate_capture_of_carried": 2,
                                                  "duplicate_content_of_carried": 1}
    assert SPEC.counters.undeclared(second["stats"]["counts"]) == []
    duplicates = [json.loads(line) for path in
                  (Path(second["path"]) / "rejected" / "duplicates").glob("*.jsonl")
                  for line in path.read_text(encoding="utf-8").splitlines()]
    assert {"url": "http://www.bbc.co.uk/news/uk-england-kent-40987654",
            "timestamp": "20170815081530", "reason": "duplicate_capture_of_carried",
            "kept_timestamp": "20190903114407"}.items() <= next(
        d for d in duplicates if d["timestamp"] == "20170815081530").items()


def page(number: int, shared: str = "") -> str:
    """A small Era B article with one question; ``shared`` is a paragraph before it."""
    paragraphs = f"<p>Opening paragraph of story {number} tells what happened today.</p>"
    if shared:
        paragraphs += f"<p>{shared}</p>"
    return (f"<html><body><h1 class='story-body__h1'>Story {number}</h1>"
            f"<div class='story-body__inner'>{paragraphs}"
            f"<h2 class='story-body__crosshead'>Why does story {number} matter?</h2>"
            f"<p>Because story {number} changes what people do next week.</p>"
            f"</div></body></html>")


SHARED = "Readers can find every update of this story on the website each morning."


def small_pages(directory: Path, pages: dict[int, str]) -> list[str]:
    """``--source html`` inputs of ``{number: shared paragraph}``."""
    directory.mkdir()
    index = "file\turl\ttimestamp\n"
    for number, shared in pages.items():
        (directory / f"{number}.html").write_text(page(number, shared), encoding="utf-8")
        index += f"{number}.html\thttps://www.bbc.co.uk/news/uk-1000{number:03d}\t" \
                 f"2017010{number}120000\n"
    (directory / "index.tsv").write_text(index, encoding="utf-8")
    return html_source(directory)


def contexts(result: dict) -> dict[str, str]:
    return {row["document_id"]: row["context"]
            for _, row in rows_by_id(Path(result["path"])).values()}


def test_new_articles_lose_paragraphs_repeated_with_carried_ones(tmp_path):
    root = tmp_path / "r"
    two = small_pages(tmp_path / "v1", {1: SHARED, 2: SHARED})
    three = small_pages(tmp_path / "v2", {1: SHARED, 2: SHARED, 3: SHARED})
    first = build(root, "1", *two)
    assert all(SHARED in text for text in contexts(first).values())  # in 2 articles: kept
    second = build(root, "2", *three, "--previous", "auto")
    refreshed = contexts(second)
    assert SHARED not in refreshed["bbc-1000003"]  # 3 articles now: boilerplate (NLQuAD §3)
    assert second["stats"]["counts"]["documents"]["repeated_paragraphs_removed"] == 1
    assert {k: v for k, v in refreshed.items() if k != "bbc-1000003"} == contexts(first)
    # a full rebuild cleans the old articles too: where a refresh keeps published rows
    assert not any(SHARED in text for text in contexts(build(root, "3", *three)).values())


def test_a_changed_row_option_is_refused_unless_recompute_all(tmp_path, capsys):
    root = tmp_path / "r"
    source = small_pages(tmp_path / "v1", {1: "", 2: ""})
    assert main([TEST_RUNNER, "--output", str(root), "--version", "1", *source]) == 0
    moved = small_pages(tmp_path / "elsewhere", {1: "", 2: ""})  # inputs move: rows=False
    args = [TEST_RUNNER, "--output", str(root), "--version", "2", *moved, "--previous",
            "auto", "--max-rows-per-shard", "1"]
    capsys.readouterr()
    assert main([*args, "--boilerplate-min-docs", "4"]) == 2
    assert "--boilerplate-min-docs was 3, now 4" in capsys.readouterr().err
    assert not (root / "nlquad" / "2").exists()
    assert main([*args, "--boilerplate-min-docs", "4", "--recompute-all"]) == 0
    refresh = read(root / "nlquad" / "2", "stats.json")["refresh"]
    assert refresh["recompute_all"] is True
    assert (refresh["carried"], refresh["recomputed"], refresh["new"]) == (0, 2, 0)
    on_first = [*args[:4], "3", *moved, "--previous", str(root / "nlquad" / "1"), *args[-2:]]
    assert main(on_first) == 0  # only options that keep rows changed
    assert read(root / "nlquad" / "3", "stats.json")["refresh"]["carried"] == 2


def test_a_previous_release_without_a_sidecar_is_refused(tmp_path, capsys, monkeypatch):
    root = tmp_path / "r"
    source = small_pages(tmp_path / "v1", {1: "", 2: ""})
    version = Path(build(root, "1", *source)["path"])
    manifest = read(version, "dataset_info.json")
    for name in [name for name in manifest["files"] if name.startswith(PREFIX)]:
        (version / name).unlink()
        del manifest["files"][name]
    (version / "dataset_info.json").write_text(json.dumps(manifest), encoding="utf-8")
    (version / "SHA256SUMS").unlink()  # a release from before SHA256SUMS
    args = [TEST_RUNNER, "--output", str(root), "--version", "2", *source,
            "--previous", str(version)]
    capsys.readouterr()
    with monkeypatch.context() as patched:  # refused before any work: no staging claimed
        patched.setattr(run_module, "claim_staging", lambda *a, **k: pytest.fail("work"))
        assert main(args) == 2
    assert f"has no {PREFIX} sidecar" in capsys.readouterr().err
    assert not (root / "nlquad" / "2").exists()
    assert main([*args, "--recompute-all"]) == 0


def test_a_split_may_not_be_named_like_the_sidecar(tmp_path, capsys):
    assert main([TEST_RUNNER, "--output", str(tmp_path), "--split-ratios",
                 "train=0.9,refresh=0.1"]) == 2
    assert "names the release's refresh sidecar" in capsys.readouterr().err


def test_an_empty_release_still_has_its_sidecar(tmp_path):
    directory = tmp_path / "pages"
    directory.mkdir()
    (directory / "1.html").write_text("<html><body>nothing</body></html>", encoding="utf-8")
    (directory / "index.tsv").write_text(
        "file\turl\ttimestamp\n1.html\thttps://www.bbc.co.uk/news/uk-1000001\t20170101120000\n",
        encoding="utf-8")
    result = build(tmp_path / "r", "1", *html_source(directory), "--allow-empty")
    assert [name for name in result["manifest"]["files"] if name.startswith(PREFIX)] == [
        f"{PREFIX}captures-00000-of-00001.jsonl"]
    second = build(tmp_path / "r", "2", *html_source(directory), "--allow-empty",
                   "--previous", "auto")
    assert second["stats"]["refresh"]["carried"] == 0
