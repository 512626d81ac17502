"""The constant tables of the C walker and word splitter are the Python sets they mirror: the
generated blocks of ``_walker.c`` and ``_ptb.c`` are up to date (filters/nq/gen_c_tables.py),
the built extensions export exactly those values, and an installed package without them warns
when it falls back to the Python walker."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from filters.nq import gen_c_tables, tokens

PROJECT_ROOT = Path(__file__).resolve().parents[3]


# --- 1. the generated blocks ---------------------------------------------------------------

def test_the_generated_blocks_match_the_python_sets() -> None:
    assert gen_c_tables.stale() == [], f"run: {gen_c_tables.COMMAND}, then rebuild"


def test_the_check_command_passes_under_another_hash_seed() -> None:
    """``--check`` exits 0 whatever the order of the sets (the output is sorted)."""
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    done = subprocess.run([sys.executable, "-m", "filters.nq.gen_c_tables", "--check"],
                          cwd=PROJECT_ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_rendering_does_not_depend_on_the_order_of_the_sets() -> None:
    sets = gen_c_tables.tag_sets()
    backwards = {name: frozenset(sorted(tags, reverse=True)) for name, tags in sets.items()}
    assert gen_c_tables.render_tags(sets) == gen_c_tables.render_tags(backwards)
    words = gen_c_tables.ptb_words()
    assert gen_c_tables.render_ptb_words(words) == gen_c_tables.render_ptb_words(
        {name: frozenset(sorted(values, reverse=True)) for name, values in words.items()})


def test_a_hand_edited_block_is_stale_and_rewritten() -> None:
    rendered = gen_c_tables.blocks()[gen_c_tables.WALKER_C]
    source = gen_c_tables.updated(gen_c_tables.WALKER_C.read_text(encoding="utf-8"), rendered)
    edited = source.replace('"noprint", ', "", 1)
    assert edited != source
    assert gen_c_tables.updated(edited, rendered) == source
    with pytest.raises(gen_c_tables.TableError):
        gen_c_tables.updated(source.replace("BEGIN GENERATED: tags", "BEGIN: tags"), rendered)


def test_values_c_cannot_hold_are_refused() -> None:
    """Non-ASCII ids, upper-case or empty words, tag names that are no C identifier, long
    token tags, multi-character translations: an error, not a C table that differs."""
    words = gen_c_tables.walker_words()
    with pytest.raises(gen_c_tables.TableError):
        gen_c_tables.render_skip_text({**words, "SKIP_TEXT_IDS": frozenset({"café"})})
    ptb = gen_c_tables.ptb_words()
    for bad in ("Mr", ""):
        with pytest.raises(gen_c_tables.TableError):
            gen_c_tables.render_ptb_words({**ptb, "ABBREVIATIONS": frozenset({bad})})
    sets = gen_c_tables.tag_sets()
    for bad in ("x-y", "A", "abcdefghijklmnop"):
        with pytest.raises(gen_c_tables.TableError):
            gen_c_tables.render_tags({**sets, "TOKEN_TAGS": frozenset({bad})})
    with pytest.raises(gen_c_tables.TableError):
        gen_c_tables.render_ptb_chars(gen_c_tables.ptb_chars(), {"("}, {"ab": "x"})


def test_a_longer_word_raises_key_cap() -> None:
    words = {**gen_c_tables.ptb_words(), "ABBREVIATIONS": frozenset({"a" * 20})}
    assert "#define KEY_CAP 20\n" in gen_c_tables.render_ptb_words(words)


def test_c_strings_are_escaped() -> None:
    assert gen_c_tables.c_string('a"\\é1') == '"a\\"\\\\\\303\\2511"'


# --- 2. what the built extensions use ------------------------------------------------------

@pytest.mark.parametrize("module", sorted(gen_c_tables.exports()))
def test_the_built_extension_uses_the_python_sets(module: str) -> None:
    """The tables compiled into the binary (exported at import) equal the Python values, and
    every table it exports is checked."""
    extension = pytest.importorskip(module)
    expected = gen_c_tables.exports()[module]
    assert {name for name in dir(extension) if name.isupper()} == set(expected)
    for name, value in expected.items():
        assert getattr(extension, name) == value, name
        assert isinstance(getattr(extension, name), (frozenset, tuple)), name


# --- 3. the warning of a fallback ----------------------------------------------------------

_PROBE = """
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from filters.nq import tokens
print(json.dumps([tokens.NATIVE_TOKENS, [str(w.message) for w in caught
                                          if w.category is RuntimeWarning]]))
"""


def _tree(root: Path, *, sources: bool, binary: bytes | None) -> Path:
    """A copy of the pure-Python ``filters.nq`` under ``root``: with the C sources and a
    setup.py (a source tree) or not (an installed package), and a (broken) extension."""
    package = root / "filters" / "nq"
    package.mkdir(parents=True)
    shutil.copy(PROJECT_ROOT / "filters" / "__init__.py", root / "filters")
    for name in ("__init__.py", "tokens.py", "text_tokens.py"):
        shutil.copy(PROJECT_ROOT / "filters" / "nq" / name, package)
    if sources:
        (root / "setup.py").write_text("")
        for name in ("_walker.c", "_ptb.c"):
            shutil.copy(PROJECT_ROOT / "filters" / "nq" / name, package)
    if binary is not None:
        (package / f"_walker{EXTENSION_SUFFIXES[0]}").write_bytes(binary)
    return root


def _import_tokens(root: Path) -> tuple[bool, list[str]]:
    """NATIVE_TOKENS and the RuntimeWarnings of importing filters.nq.tokens from ``root``."""
    done = subprocess.run([sys.executable, "-S", "-c", _PROBE], cwd=root, capture_output=True,
                          text=True, check=True, env={"PATH": os.environ.get("PATH", "")})
    native, messages = json.loads(done.stdout)
    return native, messages


def test_an_installed_package_without_the_extensions_warns_once(tmp_path: Path) -> None:
    native, messages = _import_tokens(_tree(tmp_path, sources=False, binary=None))
    assert native is False
    assert len(messages) == 1
    assert "filters.nq._walker" in messages[0] and "pip install ." in messages[0]
    assert "cannot import name" in messages[0]


def test_a_broken_build_warns_in_a_source_tree(tmp_path: Path) -> None:
    native, messages = _import_tokens(_tree(tmp_path, sources=True, binary=b"not an ELF"))
    assert native is False
    assert len(messages) == 1 and "build_ext --inplace" in messages[0]


def test_a_source_tree_never_built_falls_back_quietly(tmp_path: Path) -> None:
    assert _import_tokens(_tree(tmp_path, sources=True, binary=None)) == (False, [])


def test_the_decision_of_the_warning(tmp_path: Path) -> None:
    """Silent only for a source tree (setup.py beside the package, the .c there) with no
    built extension."""
    package = _tree(tmp_path, sources=True, binary=None) / "filters" / "nq"
    error = ImportError("cannot import name '_ptb'")
    assert tokens.fallback_warning(error, package) is None
    (package / "_ptb.cpython-310-x86_64-linux-gnu.so").write_bytes(b"")
    assert "cannot import name '_ptb'" in tokens.fallback_warning(error, package)
    (package / "_ptb.cpython-310-x86_64-linux-gnu.so").unlink()
    (tmp_path / "setup.py").unlink()
    assert tokens.fallback_warning(error, package) is not None


def test_this_checkout_imports_quietly() -> None:
    """The project's own import gives no warning: the extensions are built, or this is a
    source tree that never built them."""
    native, messages = _import_tokens(PROJECT_ROOT)
    assert messages == []
    assert native == tokens.NATIVE_TOKENS
