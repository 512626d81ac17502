"""Fixtures of the NQ filter tests."""

from __future__ import annotations

import pytest

from filters.nq import tokens


@pytest.fixture(params=["c", "python"])
def tokenizer_implementation(request: pytest.FixtureRequest,
                             monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test on the C walker and word splitter and on the Python reference (use it with
    ``pytestmark = pytest.mark.usefixtures("tokenizer_implementation")``)."""
    if request.param == "python":
        monkeypatch.setattr(tokens, "_walker", None)
    elif not tokens.NATIVE_TOKENS:
        pytest.skip("the C extensions are not built")
    return request.param
