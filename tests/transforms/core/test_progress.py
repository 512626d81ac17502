import logging

from transforms.core.progress import Progress


def test_progress_logs_count_and_rate(caplog):
    caplog.set_level(logging.INFO, logger="qa_datasets.progress")
    progress = Progress("pages parsed", every_s=0.0)
    progress.tick()
    progress.tick(4)
    assert progress.count == 5
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        "pages parsed: 1 on this worker", "pages parsed: 5 on this worker"]


def test_progress_is_quiet_between_intervals(caplog):
    caplog.set_level(logging.INFO, logger="qa_datasets.progress")
    progress = Progress("pages parsed", every_s=3600)
    for _ in range(100):
        progress.tick()
    assert not caplog.records
