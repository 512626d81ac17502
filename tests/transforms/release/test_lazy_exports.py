"""``transforms.release`` imports a module when one of its names is first used: every public
name is still importable from the package, and is the object its module defines."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import transforms.release as release
from tests.docs.pages import ROOT


def test_every_public_name_is_its_modules_object() -> None:
    for name in release.__all__:
        module = importlib.import_module(f"transforms.release.{release._SUBMODULE[name]}")
        assert getattr(release, name) is getattr(module, name), name
    assert set(release.__all__) <= set(dir(release))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        release.nothing_here  # noqa: B018
    with pytest.raises(ImportError):
        exec("from transforms.release import nothing_here", {})


def test_reading_a_release_imports_no_beam_stage() -> None:
    """Resolving and verifying need neither ``run`` nor ``shards`` (nor Beam); a name of
    ``run`` brings in ``run`` only when it is asked for."""
    code = ("import json, sys\n"
            "from transforms.release import resolve_release, require_intact, read_json, RAW\n"
            "before = sorted(m for m in sys.modules if m.startswith(('apache_beam', "
            "'transforms.release.run', 'transforms.release.shards')))\n"
            "from transforms.release import run_release\n"
            "print(json.dumps([before, 'transforms.release.run' in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [[], True]
