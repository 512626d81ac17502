"""run_release: an already published version is returned as it is with --skip-existing."""


def test_skip_existing_returns_the_published_release(tmp_path):
    from pipelines import build_categories
    from tests.conftest import TEST_RUNNER

    first = build_categories.run([TEST_RUNNER, "--output", str(tmp_path)])
    again = build_categories.run([TEST_RUNNER, "--output", str(tmp_path), "--skip-existing"])
    assert again["manifest"]["run_id"] == first["manifest"]["run_id"]
    assert (tmp_path / "categories" / "LATEST").read_text() == "1.0.0\n"

