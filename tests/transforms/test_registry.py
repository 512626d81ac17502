"""The registry is the one list of datasets: everything that enumerates them reads it."""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from pipelines import evaluate, flex_templates
from pipelines.cli import console
from transforms import registry
from transforms.core.options import option_fields


@pytest.mark.parametrize("name", registry.names())
def test_each_spec_is_complete_and_its_entry_point_is_its_own(name):
    spec = registry.spec(name)
    assert spec.name == name and spec.about and spec.description and spec.releases
    module = importlib.import_module(f"pipelines.{spec.module}")
    assert module.main.__qualname__.endswith("main") and callable(module.build_parser)
    assert dataclasses.fields(spec.options) and spec.options.__dataclass_params__.frozen
    for field, info in option_fields(spec.options):
        assert info.help, f"{name}: option {field.name} has no help"
    assert [field.name for field in dataclasses.fields(spec.options)] == [
        field.name for field, _ in option_fields(spec.options)], "a field that is no option"
    for kind in (*spec.releases, *spec.extra_releases):
        importlib.import_module(f"transforms.browse.renderers.{kind.renderer}")
        assert kind.evaluator is None or kind.evaluator in evaluate.EVALUATORS
    assert registry.by_module(spec.module) is spec and registry.by_options(spec.options) is spec


def test_every_consumer_lists_the_registry():
    modules = [registry.spec(name).module for name in registry.names()]
    assert flex_templates.pipelines() == modules
    assert set(evaluate.EVALUATORS) == set(registry.evaluation_tasks())
    assert all(f"  {name}" in console.usage() for name in registry.names())


def test_renderers_come_from_the_specs():
    assert registry.renderer_of("nq_annotated") == "nq"
    assert registry.renderer_of("jboolq_annotated") == "jnq"
    assert registry.renderer_of("no_such_dataset") == "generic"


def test_the_stored_release_kinds_are_the_specs():
    """``releases.json`` (what browse and evaluate read without importing a spec) is what
    the specs declare now: ``python -m pipelines.cli.reference --write`` rewrites it."""
    assert registry.stored_releases() == registry.release_index()
    assert registry.release_kind("jboolq_annotated") is registry.spec("jnq").release(
        "jboolq_annotated")
    assert registry.release_kind("no_such_dataset") is None
