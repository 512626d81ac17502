"""The bundled sample log is recognised by path or by content, and nothing else is (issue 27
§4: the bundled index may serve only the bundled sample log)."""

from __future__ import annotations

import gzip
import shutil

import pytest

from tests.conftest import PROJECT_ROOT
from transforms.nq import sample_log
from transforms.nq.sample_log import is_sample_log, sample_logs

SAMPLES = PROJECT_ROOT / "pipelines" / "samples"
NQ_LOG = SAMPLES / "nq" / "query_log.tsv"
NQ_AGGREGATED = SAMPLES / "nq" / "query_log_aggregated.jsonl"
JNQ_LOG = SAMPLES / "jnq" / "query_log.tsv"


def test_the_sample_logs_of_each_bundled_corpus():
    assert {path.rsplit("/", 1)[1] for path in sample_logs("en")} == {
        "query_log.tsv", "query_log_aggregated.jsonl"}
    assert {path.rsplit("/", 1)[1] for path in sample_logs("ja")} == {"query_log.tsv"}
    assert sample_logs("fr") == {}


def test_the_packaged_sample_is_the_sample():
    assert is_sample_log(str(NQ_LOG), "en") and is_sample_log(str(NQ_AGGREGATED), "en")
    assert is_sample_log(str(SAMPLES / "nq" / "query_log*"), "en")
    assert is_sample_log(str(JNQ_LOG), "ja")


def test_a_copy_elsewhere_is_the_sample_by_content(tmp_path):
    copy = tmp_path / "renamed.tsv"
    shutil.copyfile(NQ_LOG, copy)
    assert is_sample_log(str(copy), "en")
    assert is_sample_log(str(tmp_path / "*.tsv"), "en")


def test_an_edited_log_a_mixed_glob_or_another_corpus_is_not(tmp_path):
    edited = tmp_path / "edited.tsv"
    edited.write_bytes(NQ_LOG.read_bytes() + b"who was the first person to walk on the moon"
                                             b" in 1969\tu9\t2018-03-01T00:00:00\n")
    assert not is_sample_log(str(edited), "en")
    same_size = tmp_path / "same_size.tsv"
    data = bytearray(NQ_LOG.read_bytes())
    data[-2] = ord("x") if data[-2] != ord("x") else ord("y")
    same_size.write_bytes(bytes(data))
    assert not is_sample_log(str(same_size), "en")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    shutil.copyfile(NQ_LOG, mixed / "a.tsv")
    (mixed / "b.tsv").write_text("query\tuser_id\ttimestamp\n", encoding="utf-8")
    assert not is_sample_log(str(mixed / "*.tsv"), "en")
    assert not is_sample_log(str(JNQ_LOG), "en")  # the Japanese log: not the English index's
    assert not is_sample_log(str(NQ_LOG), "fr")  # no bundled corpus for the language
    assert not is_sample_log(str(tmp_path / "nothing-*.tsv"), "en")


def test_a_compressed_copy_is_not_the_sample(tmp_path):
    """The fingerprint is of the bytes: a gzip copy is user input (--sample-index exists)."""
    packed = tmp_path / "query_log.tsv.gz"
    packed.write_bytes(gzip.compress(NQ_LOG.read_bytes()))
    assert not is_sample_log(str(packed), "en")


def test_a_log_of_another_size_is_never_read(tmp_path, monkeypatch):
    def refuse(path):
        pytest.fail(f"{path} was read")

    monkeypatch.setattr(sample_log, "_sha256", refuse)
    big = tmp_path / "real.tsv"
    big.write_bytes(b"query\tuser_id\ttimestamp\n" + b"x\tu\t2018-01-01\n" * 5000)
    assert not is_sample_log(str(big), "en")
    assert is_sample_log(str(NQ_LOG), "en")  # the packaged path needs no hashing either
