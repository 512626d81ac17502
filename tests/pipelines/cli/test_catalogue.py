"""The dataset catalogue is made from the specs: every dataset, release kind, column and
counter the code declares is on the page, in Markdown that renders as written."""

from __future__ import annotations

from pipelines.cli import catalogue
from pipelines.cli.markdown import cell
from transforms import registry


def test_every_dataset_kind_column_and_counter_is_in_the_catalogue() -> None:
    text = catalogue.catalogue()
    for name in registry.names():
        spec = registry.spec(name)
        assert f"## {name}\n" in text and f"`qa-build {name}`" in text
        for kind in (*spec.releases, *spec.extra_releases):
            assert f"### `{kind.dataset}`\n" in text
            for field in kind.schema or ():
                assert f"| `{field.name}` |" in text
        for counter in spec.counters.counters:
            assert f"`{counter}`" in text


def test_the_committed_catalogue_is_current() -> None:
    assert catalogue.DEFAULT_PATH.read_text(encoding="utf-8") == catalogue.catalogue()


def test_cells_escape_markup_outside_code_spans() -> None:
    assert cell("goes to <output>/x | y") == "goes to &lt;output&gt;/x \\| y"
    assert cell("`<output>` & more") == "`<output>` &amp; more"
