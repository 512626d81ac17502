"""The layering contract of pyproject.toml holds, and it catches each kind of violation.

``lint-imports`` (import-linter) reads ``[tool.importlinter]``: pipelines above transforms
above filters; inside transforms, dataset stages above sources, release, core, then clients
and metrics; filters, clients and metrics import no Beam; no cycles between siblings.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

PACKAGES = ("pipelines", "transforms", "filters")
LINT = ("import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))")


def _lint(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", LINT], cwd=root, capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_project_keeps_every_contract():
    result = _lint(PROJECT_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout
    assert result.stdout.count("KEPT") >= 5


@pytest.fixture
def copy_of_project(tmp_path: Path) -> Path:
    """The Python packages and pyproject.toml, without samples or caches."""
    for package in PACKAGES:
        shutil.copytree(PROJECT_ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("samples", "__pycache__"))
    shutil.copy(PROJECT_ROOT / "pyproject.toml", tmp_path)
    return tmp_path


VIOLATIONS = {
    "beam_in_filters": ("filters/text/splits.py", "import apache_beam\n",
                        "import no Beam"),
    "beam_in_clients": ("transforms/clients/retry_policy.py",
                        "from apache_beam.io.filesystems import FileSystems\n", "import no Beam"),
    "transforms_import_pipelines": ("transforms/release/card.py", "import pipelines.evaluate\n",
                                    "Entry points above Beam stages"),
    "release_imports_a_dataset": ("transforms/release/stats.py", "import transforms.nq.schema\n",
                                  "Inside transforms"),
    "filters_import_transforms": ("filters/nq/heuristics.py", "import transforms.core.progress\n",
                                  "Entry points above Beam stages"),
    "cycle_between_siblings": ("filters/text/stats.py", "import filters.text.splits\n",
                               "No import cycles"),
}


@pytest.mark.parametrize("name", sorted(VIOLATIONS))
def test_a_violation_fails_the_check(copy_of_project, name):
    relative, line, contract = VIOLATIONS[name]
    if name == "cycle_between_siblings":  # close the cycle: splits -> stats -> splits
        splits = copy_of_project / "filters/text/splits.py"
        splits.write_text("import filters.text.stats\n" + splits.read_text())
    module = copy_of_project / relative
    module.write_text(line + module.read_text())
    result = _lint(copy_of_project)
    assert result.returncode != 0
    broken = result.stdout.split("Broken contracts", 1)[1]
    assert contract in broken, result.stdout
