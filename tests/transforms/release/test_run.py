"""run_release: --skip-existing (and LATEST repair), empty releases, dead-letter counts."""

import json

import pytest

from tests.transforms.release.toy import run_toy


def test_skip_existing_returns_the_published_release(tmp_path):
    from pipelines import build_categories
    from tests.conftest import TEST_RUNNER

    first = build_categories.run([TEST_RUNNER, "--output", str(tmp_path)])
    again = build_categories.run([TEST_RUNNER, "--output", str(tmp_path), "--skip-existing"])
    assert again["manifest"]["run_id"] == first["manifest"]["run_id"]
    assert (tmp_path / "categories" / "LATEST").read_text() == "1.0.0\n"
    assert again["skipped"] is True and "skipped" not in first


def test_make_run_twice_says_the_version_was_left_as_it_is(tmp_path, capsys):
    """``make run`` (the NLQuAD sample with ``--skip-existing``) a second time writes nothing
    and says so, instead of "written to"."""
    from pipelines import build_nlquad
    from tests.conftest import TEST_RUNNER

    argv = [TEST_RUNNER, "--skip-existing", "--output", str(tmp_path)]
    assert build_nlquad.main(argv) == 0
    first = capsys.readouterr().out
    assert first.startswith(f"NLQuAD release 1.0.0 written to {tmp_path}/nlquad/1.0.0\n")
    assert build_nlquad.main(argv) == 0
    again = capsys.readouterr().out
    assert "written to" not in again
    assert again.startswith(f"nlquad 1.0.0 already exists at {tmp_path}/nlquad/1.0.0: left as "
                            "it is, nothing was written (--skip-existing)")
    assert "rows in train: 36" in again
    assert again.rstrip().endswith("(the release was already published: nothing was built)")



def _latest(root):
    return (root / "toy" / "LATEST").read_text()


@pytest.mark.parametrize("damage", [None, "", "\n", "9.9.9\n", "../../etc\n", b"\xff\xfe"])
def test_skip_existing_repairs_a_missing_or_dangling_latest(tmp_path, damage):
    run_toy(tmp_path, ["a"])
    latest = tmp_path / "toy" / "LATEST"
    if damage is None:
        latest.unlink()
    elif isinstance(damage, bytes):
        latest.write_bytes(damage)
    else:
        latest.write_text(damage)
    run_toy(tmp_path, ["a"], skip_existing=True)
    assert _latest(tmp_path) == "1.0.0\n"


def test_skip_existing_repairs_latest_left_at_an_older_version(tmp_path):
    older = run_toy(tmp_path, ["a"], version="1.0.0")
    manifest = tmp_path / "toy" / "1.0.0" / "dataset_info.json"
    content = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**content, "created": "2000-01-01T00:00:00Z"}))
    run_toy(tmp_path, ["a"], version="1.0.1")
    (tmp_path / "toy" / "LATEST").write_text("1.0.0\n")  # crashed before updating LATEST
    run_toy(tmp_path, ["a"], version="1.0.1", skip_existing=True)
    assert _latest(tmp_path) == "1.0.1\n"
    # a version published earlier than the one LATEST names does not take LATEST back
    run_toy(tmp_path, ["a"], version="1.0.0", skip_existing=True)
    assert _latest(tmp_path) == "1.0.1\n"
    assert older["path"].endswith("1.0.0")


@pytest.mark.parametrize("ids", [[], ["bad1", "bad2"]])
def test_empty_release_is_refused_unless_allowed(tmp_path, ids):
    from transforms.release import EmptyReleaseError

    run_toy(tmp_path, ["a"], version="1.0.0")
    with pytest.raises(EmptyReleaseError, match="no rows in any split.*--allow-empty") as info:
        run_toy(tmp_path, ids, version="2.0.0")
    assert not (tmp_path / "toy" / "2.0.0").exists()
    kept = _kept_run(tmp_path, info.value)
    counts = json.loads((kept / "stats.json").read_text())["counts"]
    assert counts.get("rows", {}).get("read", 0) == len(ids)
    assert _latest(tmp_path) == "1.0.0\n"
    result = run_toy(tmp_path, ids, version="2.0.0", allow_empty=True)
    assert result["manifest"]["rows_per_split"] == {"train": 0}
    assert _latest(tmp_path) == "2.0.0\n"


def _kept_run(root, error):
    """The one staging directory a refused run kept (and named in its error)."""
    staging = root / "toy" / ".staging"
    (kept,) = [path for path in staging.iterdir() if path.is_dir()]
    assert {p.name for p in staging.iterdir()} == {kept.name, kept.name + ".owner"}
    assert "kept for inspection (stats.json" in str(error) and f"{kept}/" in str(error)
    return kept


def test_a_run_that_kept_no_row_says_why_and_keeps_its_stats_and_rejects(tmp_path):
    """The dominant reasons are in the message; the stats and dead letters stay in .staging
    until a later build of the dataset finds the run's process gone."""
    from tests.transforms.release.test_staging import _dead_pid
    from transforms.release import EmptyReleaseError

    with pytest.raises(EmptyReleaseError) as info:
        run_toy(tmp_path, ["bad1", "bad2", "bad3"])
    lines = str(info.value).splitlines()
    assert lines[0] == ("no rows in any split (train) of toy 1.0.0; pass --allow-empty to "
                        "publish an empty release")
    assert lines[1] == "  most frequent drop and dead-letter reasons: parse.dead_lettered: 3"
    kept = _kept_run(tmp_path, info.value)
    assert lines[2] == "  first dead letter: parse error: bad row (bad1)"
    assert "(stats.json and rejected/)" in lines[3]
    assert json.loads((kept / "stats.json").read_text())["counts"] == {
        "parse": {"dead_lettered": 3}, "rows": {"read": 3}}
    dead = [json.loads(line) for path in (kept / "rejected" / "dead_letter").iterdir()
            for line in path.read_text().splitlines()]
    assert sorted(record["id"] for record in dead) == ["bad1", "bad2", "bad3"]
    assert sorted(p.name for p in (tmp_path / "toy").iterdir()) == [".staging"]

    owner = kept.parent / (kept.name + ".owner")  # the process of that run has ended
    owner.write_text(json.dumps({**json.loads(owner.read_text()), "pid": _dead_pid()}))
    result = run_toy(tmp_path, ["a"])
    assert result["stats"]["release"] == {"abandoned_staging_removed": 1}
    assert not (tmp_path / "toy" / ".staging").exists()


def test_release_errors_reported_as_text_keep_their_class():
    from transforms.release import EmptyReleaseError, ReleaseExistsError
    from transforms.release.run import _reraise_release_error

    text = ("Traceback ...\ntransforms.release.run.EmptyReleaseError: no rows in any split "
            "(train) of toy 1.0.0; pass --allow-empty [while running 'Publish']\n")
    with pytest.raises(EmptyReleaseError, match=r"^no rows in any split \(train\)"):
        _reraise_release_error(RuntimeError(text))
    with pytest.raises(ReleaseExistsError, match="appeared during the run$"):
        _reraise_release_error(RuntimeError(
            "transforms.release.target.ReleaseExistsError: release x appeared during the run"))
    _reraise_release_error(RuntimeError("something else"))  # left to the caller


def test_dead_letters_are_counted_per_stage_in_stats(tmp_path):
    result = run_toy(tmp_path, ["a", "bad1", "b", "bad2"])
    assert result["stats"]["counts"]["parse"] == {"dead_lettered": 2}
    assert result["stats"]["counts"]["rows"] == {"kept": 2, "read": 4}
    dead_dir = tmp_path / "toy" / "1.0.0" / "rejected" / "dead_letter"
    records = [json.loads(line) for path in dead_dir.iterdir()
               for line in path.read_text().splitlines()]
    assert len(records) == 2 and {r["stage"] for r in records} == {"parse"}


def test_a_run_without_runner_names_beams_default_runner(caplog):
    """Beam logs "Missing pipeline option (runner)" on every run that names none: the job's
    options name Beam's default runner instead; a given one is kept."""
    import logging

    import apache_beam as beam
    from apache_beam.options.pipeline_options import StandardOptions

    from transforms.core.direct_runner import runner_for
    from transforms.release.run import pipeline_options

    assert pipeline_options([]).view_as(StandardOptions).runner == (
        StandardOptions.DEFAULT_RUNNER)
    assert pipeline_options(["--runner=PrismRunner"]).view_as(StandardOptions).runner == (
        "PrismRunner")
    with caplog.at_level(logging.INFO):
        options = pipeline_options([])  # the DirectRunner's engine: no Prism download
        with beam.Pipeline(runner=runner_for(options), options=options) as pipeline:
            _ = pipeline | beam.Create([1])
    assert "Missing pipeline option" not in caplog.text
