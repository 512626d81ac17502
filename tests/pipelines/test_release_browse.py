"""``python -m pipelines.release browse``: the site written, the default output, refusals
before any work with their exit codes, the keyword function, and ``--serve`` on 127.0.0.1."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from pipelines import release
from pipelines.cli.errors import UsageError
from tests.conftest import PROJECT_ROOT
from tests.transforms.browse.test_site import toy_release
from transforms.browse.serve import make_server
from transforms.browse.site import SiteExistsError
from transforms.release import DamagedReleaseError, NotAReleaseError


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> Path:
    return toy_release(tmp_path_factory.mktemp("releases"))


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_browse_writes_the_site_to_the_default_out(toy, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert release.main(["browse", str(toy)]) == 0
    site = tmp_path / "site" / "toy" / "1.0.0"
    assert (site / "index.html").is_file() and (site / "examples" / "index-00001.html").is_file()
    out = capsys.readouterr().out
    assert "wrote the site of toy 1.0.0 to site/toy/1.0.0: 9 examples" in out
    assert "open site/toy/1.0.0/index.html" in out


def test_a_dataset_root_means_its_latest_version(toy, tmp_path):
    result = release.browse(toy.parent, tmp_path / "s", page_size=2)
    assert result["path"] == str(tmp_path / "s") and result["examples"]["index_pages"] == 5


def test_an_existing_out_exits_3_before_any_work(toy, tmp_path, capsys):
    out = tmp_path / "site"
    out.mkdir()
    (out / "notes.txt").write_text("keep")
    assert release.main(["browse", str(toy), "--out", str(out)]) == 3
    assert release.main(["browse", str(toy), "--out", str(out), "--overwrite"]) == 3
    assert "no site of the release browser" in capsys.readouterr().err
    assert _listing(tmp_path) == ["site", "site/notes.txt"]
    assert release.main(["browse", str(toy), "--out", str(tmp_path / "ours")]) == 0
    assert release.main(["browse", str(toy), "--out", str(tmp_path / "ours")]) == 3
    assert "pass --overwrite" in capsys.readouterr().err
    assert release.main(["browse", str(toy), "--out", str(tmp_path / "ours"),
                         "--overwrite", "--limit", "1"]) == 0


def test_refused_before_the_release_is_read(tmp_path, capsys):
    toy = toy_release(tmp_path / "releases")
    (toy / "dev" / "dev-00000-of-00001.parquet").write_bytes(b"damaged")
    out = tmp_path / "site"
    out.mkdir()
    (out / "x").write_text("x")
    assert release.main(["browse", str(toy), "--out", str(out)]) == 3
    assert release.main(["browse", str(toy), "--out", str(tmp_path / "new")]) == 5
    assert "DAMAGED" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()


def test_usage_errors_exit_2(toy, tmp_path, capsys):
    assert release.main(["browse", str(toy), "--out", str(toy / "site")]) == 2
    assert "inside the release" in capsys.readouterr().err
    assert not (toy / "site").exists()
    assert release.main(["browse", str(tmp_path), "--out", str(tmp_path / "s")]) == 2
    assert "is not a release directory" in capsys.readouterr().err
    for option in (["--page-size", "0"], ["--limit", "-1"], ["--port", "70000"]):
        assert release.main(["browse", str(toy), "--out", str(tmp_path / "s"), *option]) == 2
    assert not (tmp_path / "s").exists()


def test_the_keyword_function_raises_typed_errors(toy, tmp_path):
    with pytest.raises(NotAReleaseError):
        release.browse(str(tmp_path))
    with pytest.raises(UsageError, match="inside the release"):
        release.browse(str(toy), str(toy / "site"))
    with pytest.raises(UsageError, match="--page-size"):
        release.browse(str(toy), str(tmp_path / "s"), page_size=0)
    release.browse(str(toy), str(tmp_path / "s"))
    with pytest.raises(SiteExistsError):
        release.browse(str(toy), str(tmp_path / "s"))
    damaged = toy_release(tmp_path / "other")
    (damaged / "test" / "test-00000-of-00001.parquet").write_bytes(b"x")
    with pytest.raises(DamagedReleaseError):
        release.browse(str(damaged), str(tmp_path / "d"))


def test_the_server_binds_127_0_0_1_only(toy, tmp_path):
    site = tmp_path / "site"
    release.browse(str(toy), str(site))
    server = make_server(str(site), 0)
    try:
        assert server.server_address[0] == "127.0.0.1"
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        url = f"http://127.0.0.1:{server.server_address[1]}/examples/index-00001.html"
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200
            assert response.headers["X-Content-Type-Options"] == "nosniff"
            assert b"Examples" in response.read()
    finally:
        server.shutdown()
        server.server_close()


def _lines(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)


def test_serve_answers_on_127_0_0_1(toy, tmp_path):
    command = [sys.executable, "-m", "pipelines.release", "browse", str(toy), "--out",
               str(tmp_path / "site"), "--serve", "--port", "0"]
    process = subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=_lines, args=(process.stdout, lines), daemon=True).start()
        served = ""
        while "serving" not in served:
            served = lines.get(timeout=120)
        url = served.split(" at ", 1)[1].split()[0]
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "index.html", timeout=10) as response:
            assert response.status == 200 and b"Overview" in response.read()
        with urllib.request.urlopen(url + "examples/data-00001.js", timeout=10) as response:
            assert response.read().startswith(b"QA.register(1, ")
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert (tmp_path / "site" / "site.json").is_file()
