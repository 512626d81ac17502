"""What the pages promise about themselves: a short README that links into the docs, a
changelog entry for this version, the release format's keys, no machine-specific paths."""

from __future__ import annotations

import re
import tomllib

import pytest

from tests.docs.pages import ROOT, pages

pytestmark = pytest.mark.docs
README_LINES = 250


def test_the_readme_is_short_and_its_links_resolve() -> None:
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= README_LINES
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert any(link.startswith("docs/") for link in local)
    assert [link for link in local if not (ROOT / link).exists()] == []


def test_the_changelog_has_an_entry_for_this_version() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    headings = re.findall(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert version in headings


def test_the_license_is_the_one_pyproject_names() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"]["text"] == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text


def test_no_page_sends_a_reader_to_this_machine_s_shared_data() -> None:
    """``../shared/data`` exists only on CI; a user of the published project has no such
    directory (CONTRIBUTING, for developers, may name it)."""
    for page in pages():
        if page.name != "CONTRIBUTING.md":
            assert "../shared" not in page.read_text(), page


def test_every_manifest_and_stats_key_of_every_release_is_documented(sample_releases) -> None:
    """The top-level keys of ``dataset_info.json`` and ``stats.json`` of one release of each
    type appear in the release-format reference."""
    import json

    reference = (ROOT / "docs" / "reference" / "release-format.md").read_text()
    missing = set()
    for version_dir in sample_releases.values():
        for name in ("dataset_info.json", "stats.json"):
            for key in json.loads((version_dir / name).read_text()):
                if f"`{key}`" not in reference:
                    missing.add((name, key))
    assert not missing, sorted(missing)


def test_troubleshooting_names_every_exit_code() -> None:
    from pipelines.cli import errors

    codes = {value for name, value in vars(errors).items() if name.startswith("EXIT_")}
    text = (ROOT / "docs" / "guides" / "troubleshooting.md").read_text()
    table = re.search(r"\| exit code \| meaning \|\n\|---\|---\|\n((?:\|.*\n)+)", text).group(1)
    assert {int(row.split("|")[1]) for row in table.splitlines()} == codes


def test_every_troubleshooting_table_is_under_its_own_heading() -> None:
    """Each table of the troubleshooting page sits in a section of its own (``##``), so the
    page's table of contents, its anchors and the site's search reach it; no section is a
    bold paragraph any more."""
    text = (ROOT / "docs" / "guides" / "troubleshooting.md").read_text()
    sections = re.split(r"^## .+$", text, flags=re.M)
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert len(headings) >= 15 and len(set(headings)) == len(headings)
    assert not re.search(r"^\|---", sections[0], re.M), "a table above the first heading"
    tables = [len(re.findall(r"^\|---", section, re.M)) for section in sections[1:]]
    assert max(tables) == 1, dict(zip(headings, tables, strict=True))
    assert not re.search(r"^\*\*[^*]+\*\*", text, re.M), "a bold paragraph as a heading"
