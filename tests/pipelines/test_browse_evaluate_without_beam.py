"""``release browse`` and ``evaluate`` do not import Apache Beam (1.4 s of CPU): the registry
gives each release kind's renderer and each task without importing a spec module (each imports
Beam, and requests), and the renderers read the schemas of the releases they show from modules
without Beam stages. ``test_release_without_beam.py`` checks the reading commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.docs.pages import ROOT

BEAM = ("apache_beam",)


def imported_after(code: str, heavy: tuple[str, ...] = BEAM) -> list[str]:
    """Which of the ``heavy`` packages are imported once ``code`` has run in a fresh
    interpreter."""
    probe = (f"{code}\nimport json, sys\n"
             f"print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_browse_and_evaluate_find_renderers_and_tasks_without_beam() -> None:
    code = ("from pipelines import evaluate\n"
            "from transforms import registry\n"
            "from transforms.browse import site\n"
            "from transforms.browse.renderers import module_name\n"
            "evaluate.build_parser()\n"
            "assert registry.evaluation_tasks()\n"
            "assert module_name('nq_annotated') == 'nq' and module_name('x') == 'generic'")
    assert imported_after(code, ("apache_beam", "requests")) == []


def test_browsing_every_sample_release_imports_no_beam(sample_releases: dict[str, Path],
                                                      tmp_path: Path) -> None:
    commands = [["browse", str(path), "--out", str(tmp_path / name), "--limit", "3"]
                for name, path in sorted(sample_releases.items())]
    code = ("from pipelines import release\n"
            f"codes = [release.main(argv) for argv in {commands!r}]\n"
            "assert codes == [0] * len(codes), codes")
    assert imported_after(code) == []
    assert all((tmp_path / name / "index.html").is_file() for name in sample_releases)
