"""Every config we emit, its tasks and the results we read back pass label-studio-sdk's parser.

The SDK runs in Label Studio's own venv (``sdk_check.py`` by subprocess)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from filters.annotation.votes import JNQ_STAGES
from tests.transforms.annotation.label_studio.fixtures import (
    choice,
    jnq_row,
    nq_example,
    page_mark,
    paragraph_span,
    text_span,
)
from transforms.annotation.label_studio.configs import (
    LONG_ANSWER_LABEL,
    LONG_ANSWER_MARKED,
    NO_ANSWER,
    jnq_config,
    nq_config,
)
from transforms.annotation.label_studio.tasks import jnq_tasks, nq_task

pytestmark = pytest.mark.label_studio

SCRIPT = Path(__file__).with_name("sdk_check.py")
GOOD = choice("question_good", "question", "good")
NQ_TASK = nq_task(nq_example(), "dev", "fp")
JNQ_RESULTS = {
    "good_question": [[choice("good_question", "question", "bad")]],
    "yes_no_question": [[choice("yes_no_question", "question", "yes")]],
    "long_answer": [[choice("long_answer", "paragraph", "no")]],
    "yes_no_answer": [[choice("yes_no_answer", "paragraph", "NONE")]],
    "span": [[text_span(0, 3, "貿易風")], [choice("no_span", "paragraph", "No span")]],
}


def _check(label_studio_bin: Path, items: list[dict]) -> dict[str, dict]:
    completed = subprocess.run([str(label_studio_bin / "python"), str(SCRIPT)],
                               input=json.dumps(items), capture_output=True, text=True,
                               timeout=120, check=True)
    return {report["name"]: report for report in json.loads(completed.stdout)}


def test_configs_tasks_and_results_are_valid_for_the_sdk(label_studio_bin):
    items = [{
        "name": "nq",
        "config": nq_config(),
        "tasks": [NQ_TASK],
        "annotations": [
            [GOOD, choice("long_answer", "page", LONG_ANSWER_MARKED),
             page_mark(NQ_TASK, 11, 13, label=LONG_ANSWER_LABEL), page_mark(NQ_TASK, 44, 48)],
            [GOOD, choice("long_answer", "page", LONG_ANSWER_MARKED),
             page_mark(NQ_TASK, 11, 13, label=LONG_ANSWER_LABEL),
             choice("yes_no_answer", "page", "YES")],
            [GOOD, choice("long_answer", "page", NO_ANSWER)],
            [choice("question_good", "question", "bad")],
        ],
    }] + [{
        "name": stage,
        "config": jnq_config(stage),
        "tasks": jnq_tasks(jnq_row(), stage, "dev", "fp"),
        "annotations": JNQ_RESULTS[stage],
    } for stage in JNQ_STAGES]
    reports = _check(label_studio_bin, items)
    assert set(reports) == {"nq", *JNQ_STAGES}
    for name, report in reports.items():
        assert report["config_error"] is None, name
        assert report["invalid_tasks"] == [], name
        assert report["annotation_errors"] == [[]] * len(report["annotation_errors"]), name


def test_the_sdk_check_catches_broken_configs_tasks_and_results(label_studio_bin):
    broken = nq_config().replace('toName="page"', 'toName="candidates"', 1)
    reports = _check(label_studio_bin, [
        {"name": "broken", "config": broken},
        {"name": "results", "config": nq_config(), "tasks": [{"data": {"question": "q"}}],
         "annotations": [[choice("question_good", "question", "maybe")],
                         [{**paragraph_span(0, 0, 3, "The"),
                           "value": {"start": "0", "end": "0", "startOffset": 0,
                                     "endOffset": 3, "paragraphlabels": ["Long answer"]}}]]},
    ])
    assert "candidates" in reports["broken"]["config_error"]
    assert reports["results"]["invalid_tasks"] == [0]
    assert all(errors for errors in reports["results"]["annotation_errors"])
