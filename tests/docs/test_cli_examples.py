"""Every command line of the toolkit in the docs parses with its command's own parser, so a
renamed or removed option cannot stay in an example."""

from __future__ import annotations

import pytest

from pipelines.cli.reference import parse_example
from tests.docs.pages import ROOT, blocks, pages, shell_commands
from transforms.core.errors import UsageError

pytestmark = pytest.mark.docs


def examples() -> list[tuple[str, list[str]]]:
    found = []
    for page in pages():
        for block in blocks(page):
            if block.language in ("bash", "sh", "console", ""):
                found += [(block.where(), argv) for argv in shell_commands(block)]
    return found


def test_the_docs_have_examples_of_every_command() -> None:
    modules = {argv[argv.index("-m") + 1] if "-m" in argv else argv[0].rsplit("/", 1)[-1]
               for _, argv in examples()}
    for expected in ("pipelines.build_nlquad", "pipelines.build_nq", "pipelines.build_jnq",
                     "pipelines.build_reqa", "pipelines.annotate", "pipelines.release",
                     "pipelines.evaluate", "qa-build", "qa-release"):
        assert expected in modules


@pytest.mark.parametrize("where, argv", examples(), ids=lambda value: value
                         if isinstance(value, str) else None)
def test_an_example_parses(where: str, argv: list[str]) -> None:
    try:
        parse_example(argv)
    except SystemExit as exit_:
        if exit_.code not in (0, None):  # --help exits 0
            pytest.fail(f"{where}: {' '.join(argv)}: exit {exit_.code}")
    except (UsageError, ValueError) as error:
        pytest.fail(f"{where}: {error}")


def test_a_misspelt_option_is_caught() -> None:
    with pytest.raises(UsageError):
        parse_example([".venv/bin/python", "-m", "pipelines.build_nq", "--min-user", "5"])


def test_shell_commands_are_split_as_bash_would() -> None:
    from tests.docs.pages import Block

    block = Block(ROOT / "README.md", "bash", 1,
                  "T=x; .venv/bin/python -m pipelines.release list $T \\\n  --json && "
                  "qa-build nq --help  # a comment\nls -l | wc\n")
    assert list(shell_commands(block)) == [
        [".venv/bin/python", "-m", "pipelines.release", "list", "$T", "--json"],
        ["qa-build", "nq", "--help"]]


def test_options_held_in_a_shell_variable_are_checked_where_used() -> None:
    from tests.docs.pages import Block

    block = Block(ROOT / "README.md", "bash", 1,
                  'RULE="--stop confident --confidence 0.99"\n'
                  '.venv/bin/python -m pipelines.annotate next --out "$RULE" $RULE\n')
    assert list(shell_commands(block)) == [
        [".venv/bin/python", "-m", "pipelines.annotate", "next", "--out", "$RULE",
         "--stop", "confident", "--confidence", "0.99"]]
    misspelt = Block(ROOT / "README.md", "bash", 1,
                     'RULE="--stop-when confident"\n'
                     '.venv/bin/python -m pipelines.annotate next --out x $RULE\n')
    with pytest.raises(UsageError):
        parse_example(next(shell_commands(misspelt)))
