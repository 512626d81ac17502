"""``release browse`` and ``evaluate`` ask the registry for each release kind's renderer and
each task without importing a spec module (each imports Apache Beam, 1.4 s of CPU) nor
requests; ``test_release_without_beam.py`` checks the reading commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.docs.pages import ROOT

HEAVY = ("apache_beam", "requests")


def imported_after(code: str) -> list[str]:
    """Which ``HEAVY`` packages are imported once ``code`` has run in a fresh interpreter."""
    probe = (f"{code}\nimport json, sys\n"
             f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))")
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
    assert imported_after(code) == []
