"""Guards of the NQ question filter's quality on real queries (issue 16), measured exactly as
``benchmarks/bench_nq_filter.py`` measures it (its populations and filter are reused).

Targets: recall on EfficientQA dev >= 97.5% (every question there passed NQ's own filter);
"how to" acceptance <= 30% on the 8+-token "how to" queries of MS MARCO + TREC MQ 2007 and
<= 35% on our own 120. Skipped when ../shared/data is absent.
"""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location(
        "bench_nq_filter", PROJECT_ROOT / "benchmarks" / "bench_nq_filter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def measured(shared_data, bench):
    """Population label prefix -> (accepted, total), for the guarded populations."""
    select = bench.make_filter(
        str(PROJECT_ROOT / "pipelines" / "samples" / "nq" / "categories.tsv"))
    sets = bench.load_sets(shared_data / "queries")
    result = {}
    for label, population in bench.populations(select, sets):
        key = next((k for k in ("NQ-open dev", "'how to', MS MARCO", "'how to', our own")
                    if label.startswith(k)), None)
        if key:
            _, kept, total, _ = bench._measure(select, label, population)
            result[key] = (kept, total)
    return result


def test_efficientqa_dev_recall(measured):
    kept, total = measured["NQ-open dev"]
    assert total == 1800
    assert kept / total >= 0.975, f"recall {kept}/{total} on EfficientQA dev"


def test_how_to_msmarco_mq2007_acceptance(measured):
    kept, total = measured["'how to', MS MARCO"]
    assert total >= 20
    assert kept / total <= 0.30, f"'how to' (MS MARCO + MQ 2007) acceptance {kept}/{total}"


def test_how_to_own_120_acceptance(measured):
    kept, total = measured["'how to', our own"]
    assert total == 120
    assert kept / total <= 0.35, f"'how to' (our own 120) acceptance {kept}/{total}"
