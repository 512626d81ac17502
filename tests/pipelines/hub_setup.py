"""Set-ups the ``release publish`` tests share: two toy versions and the fake Hub as the
endpoint, with a token of its own and the Git LFS path (no xet)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from huggingface_hub import constants

from tests.fakes.hub_server import FakeHub
from tests.transforms.release.toy import run_toy

TOKEN = "hf_test_secret_token"
TO = "hf://datasets/qa-org/toy"


def toy_versions(tmp_path: Path) -> tuple[Path, Path]:
    """Toy 1.0.0 (ids a, b, c) and 1.1.0 (a, b) under ``tmp_path/releases``."""
    root = tmp_path / "releases"
    first = Path(run_toy(root, ["a", "b", "c"], "1.0.0")["path"])
    second = Path(run_toy(root, ["a", "b"], "1.1.0")["path"])
    return first, second


@contextmanager
def fake_hub(monkeypatch, tmp_path: Path) -> Iterator[FakeHub]:
    """A started ``FakeHub`` as ``HF_ENDPOINT``, ``TOKEN`` as ``HF_TOKEN``."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))  # no token file of the machine
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    # huggingface_hub 2.x uploads LFS files through xet whenever hf_xet is installed (read
    # from HF_HUB_DISABLE_XET once, at import): the fake speaks the Git LFS path instead
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)
    with FakeHub(token=TOKEN) as fake:
        monkeypatch.setenv("HF_ENDPOINT", fake.base_url)
        yield fake
