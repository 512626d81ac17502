"""Every release kind says who annotated it (``annotations_creators``, in the Hub's
vocabulary), and a release from simulated votes says ``machine-generated``."""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources

import pytest
import yaml

from transforms import registry
from transforms.annotation.publish import annotation_dataset_card
from transforms.core.spec import ReleaseKind
from transforms.release.card import ANNOTATIONS_CREATORS, DatasetCard
from transforms.release.hub import front_matter
from transforms.release.simulated import SIMULATED, release_info

# One line per release kind: built-but-unannotated releases have no annotation, crowd votes
# are crowdsourced, NLQuAD's sub-headings are found in the articles (NLQuAD §3), ReQA keeps
# its source's, the categories lexicon is made by Hearst patterns.
EXPECTED = {
    "nq_questions": ["no-annotation"], "nq": ["no-annotation"],
    "nq_annotated": ["crowdsourced"],
    "jnq_questions": ["no-annotation"], "jnq": ["no-annotation"],
    "jnq_annotated": ["crowdsourced"],
    "jboolq_questions": ["no-annotation"], "jboolq": ["no-annotation"],
    "jboolq_annotated": ["crowdsourced"],
    "nlquad": ["found"],
    "reqa_squad": ["crowdsourced"], "reqa_nq": ["crowdsourced"], "reqa_nlquad": ["found"],
    "search_en": ["no-annotation"], "search_ja": ["no-annotation"],
    "categories": ["machine-generated"],
}
RECORD = {"votes": 12, "annotated_release": {"dataset": "nq_annotated", "version": "1.0.0"}}


def _kinds() -> list[ReleaseKind]:
    return [kind for spec in registry.specs() for kind in (*spec.releases, *spec.extra_releases)]


def _card(kind: ReleaseKind) -> DatasetCard:
    """The card a release of this kind is published with (``annotate import`` makes the
    annotated ones)."""
    if kind.make_card is None:
        return annotation_dataset_card(kind.dataset.removesuffix("_annotated"))
    assert isinstance(kind.make_card, DatasetCard), kind.dataset
    return kind.make_card


def _header(kind: ReleaseKind, **manifest) -> dict:
    manifest = {"dataset": kind.dataset, "version": "1.0.0", **manifest}
    text = front_matter(manifest, release_info(_card(kind), manifest), [])
    return yaml.safe_load(text.split("---\n")[1])


def test_every_release_kind_is_declared_and_tested():
    assert sorted(kind.dataset for kind in _kinds()) == sorted(EXPECTED)


@pytest.mark.parametrize("kind", _kinds(), ids=lambda kind: kind.dataset)
def test_each_kind_says_who_annotated_it(kind):
    header = _header(kind)
    assert header["annotations_creators"] == EXPECTED[kind.dataset]
    assert "simulated-annotations" not in header["tags"]


@pytest.mark.parametrize("kind", _kinds(), ids=lambda kind: kind.dataset)
def test_a_simulated_release_says_machine_generated_with_the_tag(kind):
    header = _header(kind, **{SIMULATED: RECORD})
    assert header["annotations_creators"] == ["machine-generated"]
    assert "simulated-annotations" in header["tags"]


def test_the_vocabulary_is_the_hubs():
    pytest.importorskip("datasets")
    creators = json.loads(resources.files("datasets.utils.resources")
                          .joinpath("creators.json").read_text(encoding="utf-8"))
    assert sorted(ANNOTATIONS_CREATORS) == sorted(creators["annotations"])


@pytest.mark.parametrize("value", [(), ("crowd",), ("crowdsourced", "people")])
def test_a_value_outside_the_vocabulary_is_refused(value):
    info = _card(_kinds()[0]).info
    with pytest.raises(ValueError, match="annotations_creators"):
        replace(info, annotations_creators=value)
