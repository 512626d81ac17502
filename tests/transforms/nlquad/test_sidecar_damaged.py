"""A sidecar line that is no document (a field no build writes, one missing, not a JSON
object, a value of the wrong type) is a damaged release: exit 5 naming the file and the
line, also when the manifest was re-sealed over it (it was a ``TypeError``, exit 1); and a
refresh's read keeps only the documents of the captures it is asked for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipelines.build_nlquad import main
from tests.transforms.nlquad.refresh_fixtures import pad_sidecar, refresh_args
from tests.transforms.nlquad.test_sidecar_streaming import NAME, _release, document
from transforms.nlquad.sidecar import (
    CapturedDocument,
    SidecarLineDamaged,
    document_of,
    parse_line,
    read_sidecar_file,
)
from transforms.release.verify import DamagedReleaseError


def line(**changes: object) -> bytes:
    data = {**document(1).to_json(), **changes}
    return json.dumps({k: v for k, v in data.items() if v is not None}).encode("utf-8")


@pytest.mark.parametrize(("data", "said"), [
    (line(pad="x"), "has fields no document has: pad"),
    (line(digest=None, split=None), "has no digest, split"),
    (b'{"capture_url": ', "is not JSON"),
    (b"[1, 2]", "is a JSON list, not an object"),
    (line(capture_timestamp=2020), "has a capture_url or capture_timestamp that is no string"),
])
def test_a_line_that_is_no_document_is_damaged(data, said):
    with pytest.raises(SidecarLineDamaged, match=f"f.jsonl: line 3 {said}"):
        parse_line(data, "f.jsonl: line 3")
    assert issubclass(SidecarLineDamaged, DamagedReleaseError)  # exit 5


def test_a_value_of_the_wrong_type_is_damaged():
    with pytest.raises(SidecarLineDamaged, match="line 9 has a value of the wrong type"):
        document_of(parse_line(line(paragraphs=5), "line 9"), "line 9")


def test_optional_fields_may_be_absent():
    data = parse_line(line(lengths=None, answer_sentences=None), "x")
    assert document_of(data, "x").answer_sentences == ()


def test_reading_names_the_file_and_the_line(tmp_path):
    good = json.dumps(document(0).to_json()).encode("utf-8")
    root = _release(tmp_path, good + b"\n\n" + line(pad="x") + b"\n")
    with pytest.raises(SidecarLineDamaged, match=rf"{tmp_path}: {NAME}: line 3 has fields"):
        list(read_sidecar_file(NAME, str(root)))


def test_only_the_wanted_captures_are_yielded_but_every_line_is_checked(tmp_path):
    documents = [document(i) for i in range(6)]
    data = b"".join(json.dumps(d.to_json()).encode("utf-8") + b"\n" for d in documents)
    wanted = {documents[1].key: None, documents[4].key: None, "not in the sidecar": None}
    found = list(read_sidecar_file(NAME, str(_release(tmp_path / "a", data)), wanted))
    assert found == [documents[1], documents[4]]
    assert list(read_sidecar_file(NAME, str(_release(tmp_path / "b", data)), {})) == []
    with pytest.raises(SidecarLineDamaged, match="line 7 has fields no document has: pad"):
        list(read_sidecar_file(NAME, str(_release(tmp_path / "c", data + line(pad="x"))), {}))


def test_a_document_reads_back_as_written():
    assert CapturedDocument.from_json(json.loads(line())) == document(1)


def test_a_resealed_line_with_an_unknown_field_fails_the_refresh_with_exit_5(
        nlquad_v1: Path, tmp_path: Path, capsys):
    """The probe of issue 35 (C11): a line with ``pad`` appended and the manifest re-sealed;
    it failed with ``TypeError`` (exit 1)."""
    version, added = pad_sidecar(nlquad_v1, tmp_path, [{"pad": "x"}])
    capsys.readouterr()
    assert main(refresh_args(version)) == 5
    err = capsys.readouterr().err
    assert f"{version}: {NAME}: line {added} has fields no document has: pad" in err
    assert "TypeError" not in err
    assert not (version.parent / "2").exists()
