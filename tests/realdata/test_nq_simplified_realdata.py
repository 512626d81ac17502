"""Real NQ: the ``simplified`` config of an annotated release of the shared NQ dev examples
equals what the official ``simplify_nq_data`` writes from the release's original-format file
(real pages: blanks inside table-cell tokens, 5-way annotations)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pipelines.test_training_tables import assert_simplified_equals_official
from tests.realdata.test_nq_annotation_realdata import import_real_annotations

pytestmark = pytest.mark.realdata


def test_real_nq_simplified_equals_official(shared_data, tmp_path):
    originals, result = import_real_annotations(shared_data, tmp_path)
    release = Path(result["path"])
    assert assert_simplified_equals_official(release, tmp_path) == len(originals)
