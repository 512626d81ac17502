"""``release publish`` against a hostile or broken Hub: where the token goes, what is printed,
what the Hub leaves out of a commit, and answers that are slow, huge, redirected or not JSON
(issue 35: A1, A2, B3, C8, C9, D15, D16). Every Hub is the fake on 127.0.0.1."""

from __future__ import annotations

import hashlib
import itertools
import logging
import time
from pathlib import Path

import pytest
from huggingface_hub import CommitOperationAdd, HfApi

from pipelines import release as release_cli
from tests.pipelines.hub_setup import TO, TOKEN
from tests.pipelines.test_release_publish import _files, _published
from tests.transforms.release.token_spellings import REAL, recoverable, spellings
from transforms.release.hub_errors import (
    DEADLINE_EXCEEDED,
    PUBLISH_DEADLINE_EXCEEDED,
    REASONS,
    HubPublishError,
)
from transforms.release.hub_http import HubDeadlines
from transforms.release.hub_options import HubOptions
from transforms.release.hub_publish import plan_publish, publish_to_hub
from transforms.release.hub_secrets import redacting_logs

PARQUET = "train/train-00000-of-00001.parquet"
OTHER_SECRET = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"  # a token's shape, not ours


def _no_token_left_the_hub(hub) -> None:
    assert hub.storage_requests, "the test expects requests to the storage origin"
    for method, path, headers in hub.storage_requests:
        assert "authorization" not in headers, (method, path)
        assert TOKEN not in repr(headers)


def _clean_failure(capsys) -> str:
    """The error line of a publish that failed cleanly: stderr's last line (before it, at
    most upload progress bars), no traceback, no token anywhere."""
    out = capsys.readouterr()
    assert "Traceback" not in out.err and TOKEN not in out.out + out.err
    last = out.err.rstrip("\n").split("\n")[-1]
    assert last.startswith("error: ") and "sent " not in out.out, out.err
    return last


# --- A1: the token goes to the Hub's own origin only


def test_a_verify_url_on_another_origin_gets_no_token(versions, hub, capsys):
    first, _ = versions
    hub.verify_on_storage = True  # the batch's verify action: a signed URL of another origin
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0
    verifies = [p for m, p, _ in hub.storage_requests if p.startswith("/__lfs/verify/")]
    assert len(verifies) == 1  # the one Parquet file went through LFS and was verified
    _no_token_left_the_hub(hub)
    assert hub.repos["qa-org/toy"].tags == {"1.0.0": hub.repos["qa-org/toy"].branches["main"]}


def test_multipart_parts_and_completion_on_another_origin_get_no_token(versions, hub):
    first, _ = versions
    hub.verify_on_storage, hub.multipart_threshold, hub.chunk_size = True, 1, 256
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0
    kinds = {p.split("/")[2] for _, p, _ in hub.storage_requests}
    assert kinds == {"part", "complete", "verify"}
    _no_token_left_the_hub(hub)


def test_a_hub_naming_itself_otherwise_is_told_the_token_was_withheld(versions, hub, capsys):
    first, _ = versions
    other = hub.base_url.replace("127.0.0.1", "localhost")
    hub.verify_base = other  # the verify URL names the Hub as localhost: another origin
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = _clean_failure(capsys)
    assert err.startswith("error: token_withheld: ") and "refused the upload" not in err
    assert f"the LFS verify step (POST {other}/datasets/qa-org/toy.git" in err
    assert f"withheld from {other} because it is not the Hub endpoint's origin " \
           f"({hub.base_url})" in err and f"HF_ENDPOINT={other})" in err
    assert hub.repos["qa-org/toy"].tags == {}
    hub.verify_base = None  # the Hub names itself as the endpoint does: the same publish goes
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0
    assert set(hub.repos["qa-org/toy"].tags) == {"1.0.0"}


def test_a_redirect_off_the_hub_is_refused_without_the_token(versions, hub, capsys):
    first, _ = versions
    hub.fail("/refs", [(307, {}, {"Location": f"{hub.storage_url}/__lfs/elsewhere"})])
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = _clean_failure(capsys)
    assert "redirect_refused" in err and hub.storage_url in err
    assert hub.storage_requests == []  # not followed: nothing, token or not, went there
    assert hub.repos["qa-org/toy"].tags == {}


def test_every_publish_reason_is_on_the_troubleshooting_page():
    page = (Path(__file__).parents[2] / "docs" / "guides" / "troubleshooting.md").read_text()
    assert [reason for reason in REASONS if f"| `{reason}`" not in page] == []


# --- A2: no token in any message or log line


def test_a_hub_error_echoing_the_token_does_not_print_it(versions, hub, capsys):
    first, _ = versions
    hub.fail("/refs", [(400, {"error": f"bad header 'Authorization: Bearer {TOKEN}' "
                                       f"(another: {OTHER_SECRET})"})])
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = _clean_failure(capsys)
    assert OTHER_SECRET not in err and "bad header" in err and "Bearer ***" in err


@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["text", "json"])
@pytest.mark.parametrize("name", list(spellings(REAL)))
def test_a_token_echoed_in_any_spelling_is_not_printed(versions, hub, capsys, monkeypatch,
                                                       name, json_flag):
    first, _ = versions
    monkeypatch.setenv("HF_TOKEN", REAL)
    hub.token = REAL
    spelled = spellings(REAL)[name]
    header = spelled if spelled.isascii() and spelled.isprintable() else REAL  # HTTP can carry
    hub.fail("/refs", [(400, {"error": f"header was 'Authorization: Bearer {spelled}'; "
                                       f"token {spelled} rejected"},
                        {"X-Error-Message": f"bad token {header}"})])
    assert release_cli.main(["publish", str(first), "--to", TO, *json_flag]) == 1
    out = capsys.readouterr()
    assert recoverable(out.out + out.err, REAL) is None, out.err
    assert "upload_refused" in out.err and "rejected" in out.err and out.out == ""


def test_log_lines_are_redacted_while_publishing(caplog):
    caplog.set_level(logging.INFO)
    with redacting_logs([TOKEN]):
        logging.getLogger("huggingface_hub.lfs").warning("sent %s to %s", TOKEN, OTHER_SECRET)
        try:
            raise RuntimeError(f"Authorization: Bearer {TOKEN}")
        except RuntimeError:
            logging.getLogger("httpx2").exception("failed")
    text = caplog.text + "".join(r.getMessage() for r in caplog.records)
    assert TOKEN not in text and OTHER_SECRET not in text and "sent *** to hf_***" in text
    logging.getLogger("x").warning("after %s", TOKEN)  # the filter is gone afterwards
    assert caplog.records[-1].getMessage() == f"after {TOKEN}"


# --- B3: the committed tree is read back before tagging


def _repo_with_gitignore(hub, text: str) -> None:
    api = HfApi(endpoint=hub.base_url, token=TOKEN)
    api.create_repo("qa-org/toy", repo_type="dataset")
    api.create_commit("qa-org/toy", repo_type="dataset", commit_message="ignore",
                      operations=[CommitOperationAdd(".gitignore", text.encode())])


def test_a_repository_gitignore_drops_no_release_file(versions, hub, capsys):
    first, _ = versions
    _repo_with_gitignore(hub, "*.parquet\nrejected/\n")
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0
    repo = hub.repos["qa-org/toy"]
    assert _published(repo, "1.0.0") == _files(first) and set(repo.tags) == {"1.0.0"}
    assert "  deleted from main: .gitignore" in capsys.readouterr().out


@pytest.mark.parametrize("gitignore", ["none", "deleted", "kept"])
def test_a_file_the_hub_leaves_out_fails_the_publish_and_nothing_is_tagged(versions, hub,
                                                                          capsys, gitignore):
    first, _ = versions
    if gitignore != "none":  # the repository has one: the commit deletes it
        _repo_with_gitignore(hub, "*.parquet\n")
    if gitignore == "kept":  # a Hub that leaves it in place all the same
        hub.kept_on_delete.add(".gitignore")
    hub.fail("/preupload/", [(200, {"files": [
        {"path": name, "uploadMode": "lfs" if name.endswith(".parquet") else "regular",
         "shouldIgnore": name == PARQUET} for name in _files(first)]})])
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = _clean_failure(capsys)
    assert "tree_mismatch" in err and f"{PARQUET}: missing" in err and "not tagged" in err
    repo = hub.repos["qa-org/toy"]
    assert repo.tags == {} and PARQUET not in repo.files("main")
    if gitignore == "kept":
        assert ".gitignore: on the Hub, not in the release" in err
        assert "main still has a .gitignore although the commit deleted it" in err
        hub.kept_on_delete.clear()
    else:  # nothing the user could remove: the hint says what happened instead
        assert "no .gitignore could drop them" in err and ".gitignore" not in repo.files("main")
        assert "remove it" not in err and "Publish again" in err
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0  # sends what is missing
    assert _published(repo, "1.0.0") == _files(first) and set(repo.tags) == {"1.0.0"}


def test_a_hub_that_lies_about_a_stored_file_fails_the_publish(versions, hub, capsys):
    first, second = versions
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0
    changed = hashlib.sha256((second / PARQUET).read_bytes()).hexdigest()
    assert changed != hashlib.sha256((first / PARQUET).read_bytes()).hexdigest()
    hub.preupload_claims[PARQUET] = changed  # "main already has this content": it has not
    capsys.readouterr()
    assert release_cli.main(["publish", str(second), "--to", TO]) == 1
    err = _clean_failure(capsys)
    sizes = [(v / PARQUET).stat().st_size for v in (first, second)]
    assert f"{PARQUET}: {sizes[0]} bytes on the Hub, {sizes[1]} in the release" in err
    assert "tree_mismatch" in err and "not tagged" in err and ".gitignore" not in err
    assert set(hub.repos["qa-org/toy"].tags) == {"1.0.0"}


# --- D16: a tag that fails after the commit


def test_a_failed_tag_says_main_was_committed_and_a_rerun_only_tags(versions, hub, capsys):
    first, _ = versions
    hub.fail("/tag/", [(500, {"error": "Internal Error"})])
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = _clean_failure(capsys)
    repo = hub.repos["qa-org/toy"]
    main = repo.branches["main"]
    assert "refused the upload" not in err and "tag_failed" in err
    assert f"main was committed as {main}" in err and "1.0.0 was not tagged" in err
    assert "re-run" in err.lower() and f"--revision {main}" in err
    commits = [p for p in hub.posts if "/commit/" in p]
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0
    assert "main already holds" in capsys.readouterr().out
    assert [p for p in hub.posts if "/commit/" in p] == commits  # no second commit
    assert repo.tags == {"1.0.0": main} and _published(repo, "1.0.0") == _files(first)


def test_a_tag_answered_by_a_page_is_read_back_and_fails_the_publish(versions, hub, capsys):
    first, _ = versions
    hub.fail("/tag/", [(200, b"<html>captive portal</html>")])  # "done", but no tag made
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = _clean_failure(capsys)
    repo = hub.repos["qa-org/toy"]
    main = repo.branches["main"]
    assert repo.tags == {} and "tag_failed" in err and f"main was committed as {main}" in err
    assert "no tag 1.0.0" in err and "1.0.0 was not tagged" in err
    assert "re-run" in err.lower() and f"--revision {main}" in err
    assert release_cli.main(["publish", str(first), "--to", TO]) == 0  # the retry only tags
    assert repo.tags == {"1.0.0": main} and "main already holds" in capsys.readouterr().out


# --- C8: a total deadline per request and per publish


def _ticking():
    """A clock that moves one second each time it is read: the publish reads it at least
    three times per request (start, write, read), so a deadline of a few dozen seconds
    fires within the first requests, however fast or slow the machine is."""
    counter = itertools.count()
    return lambda: float(next(counter))


class _TimeWhileAsked:
    """A clock that runs only while the last request the fake Hub received has ``path``:
    the dripping answer's time counts, no other request's, so the deadline fires in the
    dripping request whatever the load (the drip lasts far longer than the deadline)."""

    def __init__(self, hub, path: str) -> None:
        self.hub, self.path, self.total, self.last = hub, path, 0.0, time.monotonic()

    def __call__(self) -> float:
        now = time.monotonic()
        if self.hub.requests and self.path in self.hub.requests[-1]:
            self.total += now - self.last
        self.last = now
        return self.total


def test_a_dripping_answer_ends_at_the_request_deadline(versions, hub):
    first, _ = versions
    hub.slow_interval = 0.05  # one byte every 50 ms: the refs answer would take over 5 s
    hub.fail("/refs", ["slowloris"])
    options = HubOptions(http_read_timeout=60, http_request_deadline=0.5)
    with pytest.raises(HubPublishError) as error:  # the drip was cut: read whole, it passes
        publish_to_hub(plan_publish(str(first), TO), endpoint=hub.base_url,
                       options=options, clock=_TimeWhileAsked(hub, "/refs"))
    assert error.value.kind == DEADLINE_EXCEEDED and "/refs took longer than its 0.5 s" in str(
        error.value) and "nothing was committed" in str(error.value)
    assert hub.repos["qa-org/toy"].tags == {}


def test_a_deadline_message_gives_the_users_seconds_and_the_upload_allowance_apart():
    now = [0.0]
    deadlines = HubDeadlines(HubOptions(http_request_deadline=3), lambda: now[0])
    deadlines.start_request("POST http://hub/api/commit", 2400)  # 2400 bytes: 0.00229 s more
    now[0] = 3.1
    with pytest.raises(HubPublishError) as error:
        deadlines.remaining()
    assert str(error.value) == ("deadline_exceeded: POST http://hub/api/commit took longer than "
                                "its 3 s (--http-request-deadline, plus 0.00229 s for the "
                                "0.00229 MiB it sends)")


def test_the_whole_publish_ends_at_the_publish_deadline(versions, hub):
    first, _ = versions
    options = HubOptions(http_request_deadline=1000, publish_deadline=20)
    with pytest.raises(HubPublishError) as error:
        publish_to_hub(plan_publish(str(first), TO), endpoint=hub.base_url,
                       options=options, clock=_ticking())
    assert error.value.kind == PUBLISH_DEADLINE_EXCEEDED and "20 s" in str(error.value)
    assert hub.repos["qa-org/toy"].tags == {}


@pytest.mark.parametrize("option", ["--http-request-deadline", "--publish-deadline",
                                    "--http-max-answer-mib"])
def test_the_limits_are_checked_before_any_work(versions, hub, capsys, option):
    first, _ = versions
    assert release_cli.main(["publish", str(first), "--to", TO, option, "0"]) == 2
    err = capsys.readouterr().err
    assert option in err and "expected a finite number > 0, got '0'" in err
    assert hub.requests == []


# --- C9: every answer is read with a cap


@pytest.mark.parametrize("fault", ["endless", "gzip_bomb"])
def test_an_oversized_answer_stops_at_the_cap(versions, hub, capsys, fault):
    first, _ = versions
    hub.endless_limit = hub.bomb_bytes = 8 << 20  # were it read whole: 8 MiB
    hub.fail("/refs", [fault])
    assert release_cli.main(["publish", str(first), "--to", TO,
                             "--http-max-answer-mib", "1"]) == 1
    err = _clean_failure(capsys)
    assert "answer_too_large" in err and "1 MiB" in err and "/refs" in err
    assert hub.repos["qa-org/toy"].tags == {}


# --- D15: redirect loops and malformed JSON are clean failures


@pytest.mark.parametrize("fault, expected", [
    ("redirect_loop", "too_many_redirects"),
    ((200, b'{"branches": [{"name": "main", "ref'), "malformed_answer"),
    ((200, b'["not", "an", "object"]'), "malformed_answer"),
])
def test_redirect_loops_and_malformed_answers_fail_cleanly(versions, hub, capsys, fault,
                                                           expected):
    first, _ = versions
    hub.fail("/refs", [fault])
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = _clean_failure(capsys)
    assert expected in err and "nothing was committed" in err
    assert hub.repos["qa-org/toy"].tags == {}


def test_a_malformed_commit_answer_fails_cleanly(versions, hub, capsys):
    first, _ = versions
    hub.fail("/commit/", [(200, b"<html>")])
    assert release_cli.main(["publish", str(first), "--to", TO]) == 1
    err = _clean_failure(capsys)
    assert "malformed_answer" in err and "re-run" in err.lower()
    assert hub.repos["qa-org/toy"].tags == {}

