"""The documentation's pages and the code blocks in them, for the tests of tests/docs."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A fenced block, with the HTML comment right above it (indented as the block, in a list) that
# marks it for a test, if any (``<!-- tutorial: NAME -->``, ``<!-- quick-start-summary -->``,
# ``<!-- no-run: needs the network: ... -->``).
FENCE = re.compile(r"^(?: *<!-- (?P<mark>[^\n]*?) -->\n)?(?P<indent> *)```(?P<language>\w*)[^\n]*"
                   r"\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)
# The commands of the toolkit, as the docs write them.
TOOLKIT = re.compile(r"^(?:\.venv/bin/)?(?:python3? -m pipelines\.|qa-(?:build|release|annotate"
                     r"|evaluate)\b)")
SOMEWHERE = re.compile(r"(?:^|[\s;&|])" + TOOLKIT.pattern.lstrip("^"))


def pages() -> list[Path]:
    """Every Markdown page a reader meets: the README, the root files and the site's pages."""
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md",
            *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass(frozen=True)
class Block:
    """A fenced code block: its page, language, first line number, text and the marker
    comment right above it ("" when none)."""

    page: Path
    language: str
    line: int
    text: str
    mark: str = ""

    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path, language: str | None = None) -> list[Block]:
    """The fenced code blocks of ``page`` (of ``language`` when given), indented ones too."""
    text = page.read_text()
    found = []
    for match in FENCE.finditer(text):
        indent = len(match["indent"])
        body = "\n".join(line[indent:] for line in match["body"].splitlines())
        if language is None or match["language"] == language:
            found.append(Block(page, match["language"],
                               text[:match.start("indent")].count("\n") + 1, body,
                               match["mark"] or ""))
    return found


ASSIGNED_OPTIONS = re.compile(r'^(?P<name>[A-Z_]+)="(?P<value>--[^"$]*(?:\$\w+[^"$]*)*)"$')


def shell_commands(block: Block) -> Iterator[list[str]]:
    """The toolkit commands of a shell block as argument lists: continuation lines joined,
    comments dropped, one list per command of a ``&&``, ``;`` or ``|`` chain; a variable
    the block assigned options to (``RULE="--stop confident"``) is expanded where it is
    used unquoted, as the shell splits it."""
    joined = re.sub(r"\\\n\s*", " ", block.text)
    options: dict[str, str] = {}
    for line in joined.splitlines():
        assigned = ASSIGNED_OPTIONS.match(line.strip())
        if assigned:
            options[assigned["name"]] = assigned["value"]
            continue
        if not SOMEWHERE.search(line):
            continue  # not a toolkit command (output, a tree, another tool)
        for name, value in options.items():
            line = re.sub(rf"(?<![\"\w])\${name}\b(?!\")", lambda _, v=value: v, line)
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        command: list[str] = []
        for word in [*lexer, ";"]:
            if word in ("&&", ";", "|", "||", "&"):
                while command and re.match(r"^\w+=", command[0]):
                    command.pop(0)
                if command and TOOLKIT.match(" ".join(command)):
                    yield command
                command = []
            else:
                command.append(word)
