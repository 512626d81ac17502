"""Model suggestions shown to annotators (``annotate export --suggestions``), with a control group.

A predictions file in a format ``qa-evaluate`` reads (``transforms.evaluation.tasks``) names,
per item, what a model thinks the answer is:

* NQ: the official predictions JSON ``{"predictions": [{"example_id", "long_answer",
  "long_answer_score", "short_answers", "yes_no_answer", ...}]}``; the suggested long answer
  is the candidate whose token (else byte) span equals the predicted one, with the predicted
  short spans or YES/NO;
* JNQ / JBoolQ: ``{question id: [paragraph ids]}`` (``[]``, ``null`` or ``"NONE"``: no
  paragraph); it suggests the ``long_answer`` stage's answer for each candidate paragraph
  (yes when the paragraph is predicted). The other stages get no suggestion.

``qa-evaluate baseline nq|jnq`` writes such files (the card's baselines). ``read_suggestions``
checks the file before any work: a regular file of at most ``MAX_BYTES``, JSON, each id once
(a repeated id or key is refused, as ``qa-evaluate`` refuses it), and ids of the exported
splits: ids that name no item are counted and reported, and a file whose ids name none is
refused (``SuggestionError``, exit 2).

A share of the items (``control_rate``, default ``DEFAULT_CONTROL_RATE``) is exported without
its suggestion: an item is control when the first 8 bytes of the sha256 of ``"<seed>:<item
id>"``, read as a fraction of 2**64, are below the rate (stable across runs and machines,
unlike ``hash()``). The export manifest records, under ``MANIFEST_KEY``, the suggestion of
every item (control items included; annotators never see the manifest) and which items are
control, so the import can measure anchoring (``suggestion_agreement``).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filters.text import safe_json
from transforms.annotation.label_studio.predictions import jnq_results, nq_results, nq_shown
from transforms.metrics.jnq import paragraph_set
from transforms.metrics.nq import prediction_label

MANIFEST_KEY = "suggestions"  # the export manifest's key (annotation_export.json)
SUGGESTION = "suggestion"  # the key of a votes task's data that holds its suggestion
DEFAULT_CONTROL_RATE = 0.1
MAX_BYTES = 512 * 1024 * 1024  # a predictions file larger than this is refused
SUGGESTED_STAGES = {"nq": ("nq",), "jnq": ("long_answer",), "jboolq": ("long_answer",)}


class SuggestionError(ValueError):
    """A predictions file that cannot be used as suggestions (exit 2, before any work)."""


@dataclass(frozen=True)
class SuggestionOptions:
    """``--suggestions PATH``, ``--control-rate`` (0 < rate < 1) and ``--control-seed``."""

    path: str
    control_rate: float = DEFAULT_CONTROL_RATE
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.control_rate < 1:
            raise SuggestionError(f"--control-rate must be between 0 and 1 (exclusive), not "
                                  f"{self.control_rate}")


def is_control(seed: int, item: str, rate: float) -> bool:
    """Whether ``item`` is in the control group (exported without its suggestion)."""
    digest = hashlib.sha256(f"{seed}:{item}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < rate


class _Repeats:
    """``object_pairs_hook`` that refuses an object repeating a key (json keeps the last)."""

    def __init__(self, path: str, keys: str):
        self.path, self.keys = path, keys

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        counts = Counter(key for key, _ in pairs)
        repeated = sorted(key for key, n in counts.items() if n > 1)
        if repeated:
            raise SuggestionError(f"--suggestions {self.path}: {len(repeated)} {self.keys}(s) "
                                  f"given more than once ({', '.join(repeated[:5])}); give "
                                  "each once")
        return dict(pairs)


def _load(path: str, keys: str) -> Any:
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        raise SuggestionError(f"--suggestions {path}: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        raise SuggestionError(f"--suggestions {path} is not a regular file (a directory, "
                              "FIFO or device)")
    size = os.stat(path).st_size
    if size > MAX_BYTES:
        raise SuggestionError(f"--suggestions {path} is {size} bytes, over the "
                              f"{MAX_BYTES} bytes a predictions file may have")
    data = Path(path).read_bytes()
    try:
        if safe_json.nesting_depth(data) > safe_json.MAX_DEPTH:
            raise ValueError(f"nested deeper than {safe_json.MAX_DEPTH} levels")
        return json.loads(data.decode("utf-8"), object_pairs_hook=_Repeats(path, keys)), data
    except SuggestionError:
        raise
    except (ValueError, RecursionError) as error:  # JSON, UTF-8
        raise SuggestionError(f"--suggestions {path} is not valid JSON: {error}") from None


def _nq_predictions(data: Any, path: str) -> dict[str, dict[str, Any]]:
    if not isinstance(data, dict) or not isinstance(data.get("predictions"), list):
        raise SuggestionError(f'--suggestions {path}: NQ predictions are a JSON object '
                              '{"predictions": [...]} (qa-evaluate nq\'s format)')
    records: dict[str, dict[str, Any]] = {}
    repeated: Counter[str] = Counter()
    for record in data["predictions"]:
        try:
            label = prediction_label(record)
        except ValueError as error:
            raise SuggestionError(f"--suggestions {path}: {error}") from None
        if label.example_id in records:
            repeated[label.example_id] += 1
        records[label.example_id] = record
    if repeated:
        ids = sorted(repeated)
        raise SuggestionError(f"--suggestions {path}: {len(ids)} example_id(s) given more "
                              f"than once ({', '.join(ids[:5])}); give each once")
    return records


def _jnq_predictions(data: Any, path: str) -> dict[str, list[int]]:
    if not isinstance(data, dict):
        raise SuggestionError(f"--suggestions {path}: JNQ predictions are a JSON object "
                              "{question id: [paragraph ids]} (qa-evaluate jnq's format)")
    predictions = {}
    for qid, value in data.items():
        try:
            ids = paragraph_set(value)
            predictions[str(qid)] = sorted(int(p) for p in ids)
        except (ValueError, TypeError):
            raise SuggestionError(f"--suggestions {path}: the prediction of {qid} must be a "
                                  f"list of paragraph ids, not {str(value)[:80]}") from None
    return predictions


@dataclass
class Suggestions:
    """The predictions of one file, checked against the items exported, and what the export
    did with them: ``items`` (item id -> suggestion) and ``control`` (items exported
    without it)."""

    options: SuggestionOptions
    base: str
    predictions: dict[str, Any]
    sha256: str
    unknown: int = 0
    items: dict[str, Any] = field(default_factory=dict)
    control: set[str] = field(default_factory=set)
    not_shown: int = 0

    @property
    def model_version(self) -> str:
        """Label Studio's ``model_version``: the file's name and the start of its sha256."""
        return f"{Path(self.options.path).name}@{self.sha256[:12]}"

    def check_ids(self, release_ids: set[str]) -> None:
        """Count the ids naming no exported item; refuse a file that names none."""
        matched = sum(1 for item in self.predictions if item in release_ids)
        self.unknown = len(self.predictions) - matched
        if not matched:
            shown = ", ".join(sorted(self.predictions)[:3])
            raise SuggestionError(
                f"none of the {len(self.predictions)} ids of --suggestions "
                f"{self.options.path} names an item of the exported split(s)"
                + (f" (e.g. {shown})" if shown else "")
                + ": predictions of another release or split?")

    def _suggestion(self, example: dict[str, Any]) -> Any:
        if self.base != "nq":
            return {"paragraphs": self.predictions.get(str(example["id"]))}
        record = self.predictions.get(str(example["example_id"]))
        return None if record is None else nq_suggestion(example, record)

    def apply(self, task: dict[str, Any], example: dict[str, Any], stage: str, tool: str
              ) -> dict[str, Any]:
        """``task`` with its suggestion (Label Studio ``predictions`` or votes data
        ``suggestion``), unchanged for an item without one, in the control group, or at a
        stage the predictions say nothing about; ``items`` and ``control`` record it."""
        item = str(example["example_id" if self.base == "nq" else "id"])
        if item not in self.predictions or stage not in SUGGESTED_STAGES[self.base]:
            return task
        if item not in self.items:
            suggestion = self._suggestion(example)
            if suggestion is None or (self.base == "nq" and not nq_shown(task["data"],
                                                                       suggestion)):
                self.not_shown += 1
                self.predictions.pop(item)
                return task
            self.items[item] = suggestion
            if is_control(self.options.seed, item, self.options.control_rate):
                self.control.add(item)
        if item in self.control:
            return task
        suggestion = self.items[item]
        data = task["data"]
        if self.base == "nq":
            shown, results = suggestion, nq_results(data, suggestion)
        else:
            shown = data["paragraph"] in suggestion["paragraphs"]
            results = jnq_results(stage, shown)
        if tool == "votes":
            return {**task, "data": {**data, SUGGESTION: shown}}
        prediction = {"model_version": self.model_version, "result": results}
        if self.base == "nq":
            prediction["score"] = float(self.predictions[item].get("long_answer_score") or 0.0)
        return {**task, "predictions": [prediction]}

    def describe(self) -> dict[str, Any]:
        """The manifest's record (``MANIFEST_KEY``)."""
        return {"file": self.options.path, "sha256": self.sha256, "format": self.base,
                "model_version": self.model_version,
                "control_rate": self.options.control_rate, "seed": self.options.seed,
                "stages": list(SUGGESTED_STAGES[self.base]),
                "ids": len(self.predictions) + self.not_shown,
                "unknown_ids": self.unknown, "not_shown": self.not_shown,
                "suggested": len(self.items) - len(self.control),
                "control": sorted(self.control), "items": dict(sorted(self.items.items()))}


def nq_suggestion(example: dict[str, Any], record: dict[str, Any]) -> dict[str, Any] | None:
    """A prediction as an NQ vote's answer (``long_answer_candidate``, ``short_answers``,
    ``yes_no_answer``); None when its long answer is none of the example's candidates."""
    label = prediction_label(record)
    candidate = -1
    span = label.long_answer
    if not span.is_null:
        keys = (("start_token", "end_token") if span.start_token >= 0
                else ("start_byte", "end_byte"))
        wanted = (getattr(span, keys[0]), getattr(span, keys[1]))
        matches = [i for i, c in enumerate(example["long_answer_candidates"])
                   if (c.get(keys[0]), c.get(keys[1])) == wanted]
        if not matches:
            return None
        candidate = matches[0]
    shorts = [{"start_token": s.start_token, "end_token": s.end_token}
              for s in label.short_answers if s.start_token >= 0] if candidate >= 0 else []
    yes_no = label.yes_no_answer.upper() if candidate >= 0 else "NONE"
    return {"long_answer_candidate": candidate, "short_answers": shorts,
            "yes_no_answer": yes_no}


def read_suggestions(options: SuggestionOptions, base: str) -> Suggestions:
    """The predictions file checked (path, size, JSON, each id once, the format of
    ``base``'s predictions); ``check_ids`` then checks them against the release."""
    keys = "example_id" if base == "nq" else "question id"
    data, raw = _load(options.path, keys)
    predictions = (_nq_predictions(data, options.path) if base == "nq"
                   else _jnq_predictions(data, options.path))
    if not predictions:
        raise SuggestionError(f"--suggestions {options.path} holds no prediction")
    return Suggestions(options, base, predictions, hashlib.sha256(raw).hexdigest())


def suggested_project(settings: dict[str, Any], suggestions: Suggestions | None
                      ) -> dict[str, Any]:
    """A Label Studio ``project.json`` body that pre-annotates each task with the
    ``suggestions``' predictions (``show_collab_predictions``, their ``model_version``);
    ``settings`` unchanged without suggestions."""
    if suggestions is None:
        return settings
    return {**settings, "show_collab_predictions": True,
            "model_version": suggestions.model_version}


def manifest_suggestions(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The suggestions an export manifest records, None when it was exported without."""
    value = manifest.get(MANIFEST_KEY)
    return value if isinstance(value, dict) else None


def suggestions_for(path: str | None, control_rate: float | None, seed: int, base: str
                    ) -> Suggestions | None:
    """The checked suggestions of ``--suggestions`` (None without it); ``--control-rate``
    without ``--suggestions`` is a ``SuggestionError``."""
    if path is None:
        if control_rate is not None:
            raise SuggestionError("--control-rate applies to --suggestions")
        return None
    rate = DEFAULT_CONTROL_RATE if control_rate is None else control_rate
    return read_suggestions(SuggestionOptions(path, rate, seed), base)


def summary_lines(manifest: dict[str, Any]) -> list[str]:
    """The export summary's lines about its suggestions (none without)."""
    recorded = manifest_suggestions(manifest)
    if recorded is None:
        return []
    lines = [f"  suggestions ({recorded['model_version']}): {recorded['suggested']} items "
             f"shown one, {len(recorded['control'])} control items without "
             f"(--control-rate {recorded['control_rate']})"]
    if recorded["unknown_ids"]:
        lines.append(f"  {recorded['unknown_ids']} prediction ids name no item of the "
                     "exported split(s): ignored")
    if recorded["not_shown"]:
        lines.append(f"  {recorded['not_shown']} predictions name a long answer that is not "
                     "a box of the page: not shown")
    return lines
