"""Reading a categories corpus: one bad line costs only itself (issue 23 §10); compressed files
are checked and capped (§5, §15)."""

from __future__ import annotations

import gzip
import json

import apache_beam as beam
import zstandard
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing import test_pipeline

from tests.conftest import TEST_RUNNER
from transforms.categories.stages import ReadCorpus
from transforms.core.accounting import DEAD_LETTER, TALLY

TEXTS = [f"Paragraph {i} about cities such as Paris and Rome." for i in range(5)]


def _dump(path, values):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(values, handle)


def _read(patterns, tmp_path, **options):
    """Run ReadCorpus: (paragraphs, tallies, [(reason, source) of each dead letter])."""
    with test_pipeline.TestPipeline(options=PipelineOptions([TEST_RUNNER])) as p:
        paragraphs, results = p | ReadCorpus(patterns, **options)
        tallies = [r[TALLY] for r in results] | beam.Flatten() | beam.CombinePerKey(sum)
        dead = ([r[DEAD_LETTER] for r in results] | "Dead" >> beam.Flatten()
                | beam.Map(lambda d: [d.get("reason"), d.get("source")]))
        for label, pcoll in (("paragraphs", paragraphs), ("tallies", tallies), ("dead", dead)):
            path = str(tmp_path / f"{label}.json")
            _ = (pcoll | f"List{label}" >> beam.combiners.ToList()
                 | f"Dump{label}" >> beam.Map(lambda values, path=path: _dump(path, values)))
    out = {label: json.loads((tmp_path / f"{label}.json").read_text())
           for label in ("paragraphs", "tallies", "dead")}
    return sorted(out["paragraphs"]), dict(map(tuple, out["tallies"])), sorted(out["dead"])


def test_one_bad_jsonl_line_costs_only_itself(tmp_path):
    (tmp_path / "in").mkdir()
    lines = [json.dumps({"text": text}) for text in TEXTS]
    lines[1] = "not json at all"
    lines[2] = "[1, 2, 3]"
    lines[3] = '{"text": ' + "[" * 50_000 + "]" * 50_000 + "}"
    (tmp_path / "in" / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    paragraphs, tallies, dead = _read([str(tmp_path / "in" / "*.jsonl")], tmp_path)
    assert paragraphs == [TEXTS[0], TEXTS[4]]
    assert tallies["corpus.malformed_lines"] == 3
    assert tallies["corpus.malformed.malformed_json"] == 1
    assert tallies["corpus.malformed.not_an_object"] == 1
    assert tallies["corpus.malformed.too_deeply_nested"] == 1
    assert [reason for reason, _ in dead] == ["malformed_json", "not_an_object",
                                              "too_deeply_nested"]
    assert sorted(source.rsplit(":", 1)[1] for _, source in dead) == ["2", "3", "4"]


def test_a_truncated_zstd_corpus_keeps_its_complete_lines_and_is_dead_lettered(tmp_path):
    (tmp_path / "in").mkdir()
    text = "".join(f"Line {i}: fruits such as apples and pears.\n" for i in range(30_000))
    packed = zstandard.ZstdCompressor().compress(text.encode())
    (tmp_path / "in" / "cut.txt.zst").write_bytes(packed[:len(packed) // 2])
    paragraphs, tallies, dead = _read([str(tmp_path / "in" / "*")], tmp_path)
    assert [reason for reason, _ in dead] == ["truncated_compression"]
    assert dead[0][1].endswith("cut.txt.zst")
    assert tallies["corpus.unreadable.truncated_compression"] == 1
    assert 0 < len(paragraphs) < 30_000
    assert all(text.count(paragraph + "\n") == 1 for paragraph in paragraphs)


def test_a_gzip_bomb_is_refused_at_the_cap(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "bomb.txt.gz").write_bytes(gzip.compress(b"a b c\n" * (2 << 20)))
    (tmp_path / "in" / "ok.txt").write_text(TEXTS[0] + "\n")
    paragraphs, tallies, dead = _read([str(tmp_path / "in" / "*")], tmp_path,
                                      max_decoded_bytes=1 << 20)
    assert paragraphs == [TEXTS[0]]
    assert [reason for reason, _ in dead] == ["decoded_too_large"]
    assert tallies["corpus.unreadable.decoded_too_large"] == 1
