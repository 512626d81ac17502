"""The round trip through a real Label Studio server on 127.0.0.1.

Create a project from our config, import our tasks, post two workers' annotations through the
API (each worker authenticated with their own Personal Access Token), export JSON, and read
the export back into exactly the votes that were posted."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from filters.annotation.votes import parse_jnq_vote, parse_nq_vote
from pipelines import annotate
from tests.conftest import TEST_RUNNER
from tests.transforms.annotation.label_studio.fixtures import (
    choice,
    jnq_row,
    nq_example,
    page_mark,
    text_span,
)
from tests.transforms.annotation.label_studio.server import ADMIN_EMAIL, Client
from transforms.annotation.label_studio.configs import (
    LONG_ANSWER_LABEL,
    LONG_ANSWER_MARKED,
    SHORT_ANSWER_LABEL,
    jnq_config,
    nq_config,
    project_settings,
)
from transforms.annotation.label_studio.exports import votes_from_export
from transforms.annotation.label_studio.tasks import jnq_tasks, nq_task
from transforms.annotation.page import page_text

pytestmark = pytest.mark.label_studio

RELEASE = "fedcba9876543210"


def _project(client: Client, title: str, config: str, tasks: list[dict]) -> list[int]:
    project = client.post("/api/projects", project_settings(title, config, ways=2))
    assert project["maximum_annotations"] == 2
    imported = client.post(f"/api/projects/{project['id']}/import", tasks,
                           return_task_ids="true")
    assert imported["task_count"] == len(tasks)
    return project["id"], imported["task_ids"]


def _annotate(client: Client, task_id: int, result: list[dict], cancelled: bool = False) -> dict:
    posted = client.post(f"/api/tasks/{task_id}/annotations/",
                         {"result": result, "was_cancelled": cancelled, "lead_time": 2.0})
    assert posted["completed_by"] == client.user_id
    return posted


def test_legacy_tokens_are_off_and_access_tokens_work(server, workers):
    admin, _ = workers
    assert admin.get("/api/current-user/whoami")["email"] == ADMIN_EMAIL
    legacy = admin.session.get(server.url + "/api/projects", timeout=30,
                               headers={"Authorization": "Token " + admin.personal_access_token})
    assert legacy.status_code == 401


def test_nq_round_trip(workers, tmp_path):
    admin, worker = workers
    other = nq_example(example_id=777)
    project, (task, second) = _project(admin, "NQ round trip", nq_config(), [
        nq_task(nq_example(), "dev", RELEASE), nq_task(other, "dev", RELEASE)])
    good = [choice("question_good", "question", "good"),
            choice("long_answer", "page", LONG_ANSWER_MARKED)]
    page = nq_task(nq_example(), "dev", RELEASE)
    text = page_text(page["data"]["page"])

    def mark(needle: str, label: str = SHORT_ANSWER_LABEL) -> dict:
        start = text.rindex(needle)
        return page_mark(page, start, start + len(needle), label=label)

    posted = [
        _annotate(admin, task, [*good, mark("#1 ", LONG_ANSWER_LABEL), mark("east")]),
        _annotate(worker, task, [*good, mark("#0 ", LONG_ANSWER_LABEL),
                                 choice("yes_no_answer", "page", "YES")]),
        _annotate(admin, second, [choice("question_good", "question", "bad")]),
        _annotate(worker, second, [], cancelled=True),
    ]
    export = admin.get(f"/api/projects/{project}/export", exportType="JSON")
    results = sorted(votes_from_export(export, "nq"), key=lambda r: str(r.get("submitted_at")))

    def vote(example_id, posted_annotation, client, **answer):
        return {"example_id": example_id, "annotator_id": str(client.user_id),
                "question_good": True, "long_answer_candidate": -1, "short_answers": [],
                "yes_no_answer": "NONE", "release": RELEASE,
                "submitted_at": posted_annotation["updated_at"], **answer}

    assert [r for r in results if "error" not in r] == [
        vote("-4242", posted[0], admin, long_answer_candidate=1,
             short_answers=[{"start_token": 29, "end_token": 30}]),
        vote("-4242", posted[1], worker, long_answer_candidate=0, yes_no_answer="YES"),
        vote("777", posted[2], admin, question_good=False),
    ]
    assert [(r["error"], r["task"], r["annotation"]) for r in results if "error" in r] == [
        ("cancelled_annotation", second, posted[3]["id"])]
    for result in results[:3]:
        parse_nq_vote(result)

    # The export file itself goes into an annotated release.
    (tmp_path / "export.json").write_text(json.dumps(export), encoding="utf-8")
    with gzip.open(tmp_path / "nq-dev-00.jsonl.gz", "wt", encoding="utf-8") as handle:
        for example in (nq_example(), other):
            handle.write(json.dumps(example) + "\n")
    release = annotate.run(["import", "--dataset", "nq", "--input",
                            str(tmp_path / "nq-dev-00.jsonl.gz"), "--split", "dev", "--ways",
                            "2", "--votes", str(tmp_path / "export.json"), "--output",
                            str(tmp_path / "out"), TEST_RUNNER])
    counts = release["stats"]["counts"]
    assert counts["votes"]["label_studio_exports"] == 1
    assert counts["votes"]["refused.cancelled_annotation"] == 1
    assert (counts["examples"]["annotated"], counts["examples"]["pending"]) == (1, 1)
    out = next((Path(release["path"]) / "nq_original" / "dev").glob("*.jsonl.gz"))
    with gzip.open(out, "rt", encoding="utf-8") as handle:
        [annotated] = [json.loads(line) for line in handle]
    assert sorted(a["long_answer"]["candidate_index"] for a in annotated["annotations"]) == [
        0, 1]
    assert sorted(a["yes_no_answer"] for a in annotated["annotations"]) == ["NONE", "YES"]


def test_jnq_span_round_trip(workers):
    admin, worker = workers
    tasks = jnq_tasks(jnq_row(), "span", "test", RELEASE, paragraphs=[0, 3])
    project, (first, second) = _project(admin, "JNQ spans", jnq_config("span"), tasks)
    no_span = choice("no_span", "paragraph", "No span")
    posted = [
        (_annotate(admin, first, [text_span(0, 3, "貿易風")]), admin, 0, {"start": 0, "end": 3}),
        (_annotate(worker, first, [no_span]), worker, 0, None),
        (_annotate(admin, second, [no_span]), admin, 3, None),
        (_annotate(worker, second, [text_span(0, 2, "赤道")]), worker, 3, {"start": 0, "end": 2}),
    ]
    export = admin.get(f"/api/projects/{project}/export", exportType="JSON")
    votes = sorted(votes_from_export(export, "jnq"), key=lambda v: v["submitted_at"])
    assert votes == [
        {"question_id": "9876543210", "annotator_id": str(client.user_id), "stage": "span",
         "paragraph": paragraph, "value": value, "release": RELEASE,
         "submitted_at": annotation["updated_at"]}
        for annotation, client, paragraph, value in posted]
    for vote in votes:
        parse_jnq_vote(vote)
