"""LinkQuestions and FetchPages, called as a worker calls them (``setup()``, then
``process``): progress lines from the network-bound steps, and a stop after consecutive
connection failures, counted per DoFn instance (each pickled copy a worker sets up counts
its own). Time is a fake clock that each search or fetch advances: nothing here depends on
the machine's speed."""

from __future__ import annotations

import logging

import pytest
from apache_beam.internal import pickler

from transforms.clients.breaker import EndpointFailing
from transforms.clients.http_json import HttpError
from transforms.core import progress as progress_module
from transforms.core.progress import ENV_EVERY
from transforms.nq.linking import FetchPages, LinkQuestions

SECONDS_PER_REQUEST = 20.0  # what an offline search took with its retries (issue 27)


class FakeTime:
    """``time.monotonic`` of the progress module, advanced only by the fake requests."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class SlowFailingSearch:
    """A search backend whose every search takes 20 s of fake time, then fails."""

    def __init__(self, clock: FakeTime, kind: str = "connection_error") -> None:
        self.clock, self.kind = clock, kind
        self.calls = 0

    def search(self, query: str, k: int = 5) -> list:
        self.calls += 1
        self.clock.now += SECONDS_PER_REQUEST
        raise HttpError(self.kind, "http://127.0.0.1:9/w/api.php")

    def close(self) -> None:
        pass


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    fake = FakeTime()
    monkeypatch.setattr(progress_module, "time", fake)
    monkeypatch.setenv(ENV_EVERY, "5")  # --progress 5
    return fake


def shard(n: int) -> tuple[int, list[dict]]:
    return 0, [{"question": f"question {i:02d}"} for i in range(n)]


def set_up(stage):
    stage.setup()
    return stage


def test_searching_shows_progress_every_interval(clock: FakeTime, caplog) -> None:
    caplog.set_level(logging.INFO, logger="qa_datasets.progress")
    backend = SlowFailingSearch(clock)
    stage = set_up(LinkQuestions(lambda: backend, "en"))
    list(stage.process(shard(3)))
    lines = [r.getMessage().rsplit(" [worker ", 1)[0]  # the tag: test_progress_workers.py
             for r in caplog.records if r.name == "qa_datasets.progress"]
    assert lines == ["progress: questions searched: 1, 0.1/s",
                     "progress: questions searched: 2, 0.1/s",
                     "progress: questions searched: 3, 0.1/s"]


def test_fetching_pages_shows_progress(clock: FakeTime, caplog) -> None:
    caplog.set_level(logging.INFO, logger="qa_datasets.progress")

    class SlowFetcher:
        def fetch(self, title: str):
            clock.now += SECONDS_PER_REQUEST
            raise HttpError("http_404", f"http://127.0.0.1:9/page/html/{title}")

    stage = set_up(FetchPages(SlowFetcher))
    list(stage.process((0, [(f"Page {i}", [{"question": f"q{i}"}]) for i in range(2)])))
    lines = [r.getMessage().rsplit(" [worker ", 1)[0]  # the tag: test_progress_workers.py
             for r in caplog.records if r.name == "qa_datasets.progress"]
    assert lines == ["progress: pages asked: 1, 0.1/s", "progress: pages asked: 2, 0.1/s"]


def test_consecutive_connection_failures_stop_the_stage(clock: FakeTime) -> None:
    backend = SlowFailingSearch(clock)
    stage = set_up(LinkQuestions(lambda: backend, "en", failure_limit=3,
                                      what="the search backend mediawiki"))
    with pytest.raises(EndpointFailing, match="^the search backend mediawiki failed 3 "
                                              "searches in a row"):
        list(stage.process(shard(40)))
    assert backend.calls == 3  # of 40
    assert clock.now - 1000.0 == 3 * SECONDS_PER_REQUEST  # 60 s instead of 800 s


def test_each_worker_counts_its_own_failures(clock: FakeTime) -> None:
    """No process-global state: two copies of one DoFn count separately."""
    template = LinkQuestions(lambda: SlowFailingSearch(FakeTime()), "en", failure_limit=3)
    first, second = (set_up(pickler.loads(pickler.dumps(template))) for _ in range(2))
    assert len(list(first.process(shard(2)))) > 0  # 2 failures: dead-lettered, no stop
    assert len(list(second.process(shard(2)))) > 0
    with pytest.raises(EndpointFailing):
        list(first.process(shard(1)))


def test_other_failures_never_stop_the_stage(clock: FakeTime) -> None:
    backend = SlowFailingSearch(clock, kind="http_403")
    stage = set_up(LinkQuestions(lambda: backend, "en", failure_limit=2))
    outputs = list(stage.process(shard(10)))
    assert backend.calls == 10 and outputs
