"""What a publish to the Hugging Face Hub can fail with, and the reason names its messages use.

``release publish`` maps every ``HubPublishError`` to exit 1 and prints its message (with any
token redacted, ``hub_secrets.redact``); ``HubVersionExistsError`` is exit 3 and
``InvalidHubTarget`` exit 2. Each message starts with its reason name (``kind``), the same
strings the troubleshooting page lists.
"""

from __future__ import annotations

from transforms.clients.bounded_http import DEADLINE_EXCEEDED, TOO_MANY_REDIRECTS

UPLOAD_REFUSED = "upload_refused"  # the Hub or its storage answered a request with an error
CONNECTION_FAILED = "connection_failed"  # a timeout, a refused or reset connection
ANSWER_TOO_LARGE = "answer_too_large"  # an answer over --http-max-answer-mib
MALFORMED_ANSWER = "malformed_answer"  # an answer that is not the JSON the protocol expects
REDIRECT_REFUSED = "redirect_refused"  # a redirect to another origin than the request's
PUBLISH_DEADLINE_EXCEEDED = "publish_deadline_exceeded"  # the whole publish ran out of time
TREE_MISMATCH = "tree_mismatch"  # the committed files are not the release's
TAG_FAILED = "tag_failed"  # main was committed, the tag could not be created
TOKEN_WITHHELD = "token_withheld"  # refused (401/403) a request sent off the Hub's origin,
#                                    so without the token
REASONS = (UPLOAD_REFUSED, TOKEN_WITHHELD, CONNECTION_FAILED, ANSWER_TOO_LARGE, MALFORMED_ANSWER,
           REDIRECT_REFUSED, TOO_MANY_REDIRECTS, DEADLINE_EXCEEDED, PUBLISH_DEADLINE_EXCEEDED,
           TREE_MISMATCH, TAG_FAILED)


class InvalidHubTarget(ValueError):
    """``--to`` is not ``hf://datasets/ORG/NAME`` with valid Hub names."""


class HubVersionExistsError(RuntimeError):
    """The repository already has a revision (tag) named after the version."""


class HubPublishError(RuntimeError):
    """A publish that did not complete: ``kind`` is one of ``REASONS``; the message says what
    the repository holds now and what to do."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind, self.detail = kind, message


class HubUploadError(HubPublishError):
    """A request before the commit failed: nothing was committed or tagged."""


class HubAnswerError(HubPublishError):
    """An answer publish cannot use: too large, not JSON, a redirect off its origin or a loop
    (raised inside a request; the publish step wraps it with what it means)."""


class HubDeadlineError(HubPublishError):
    """A request, or the whole publish, ran past its deadline."""


class HubNotTaggedError(HubPublishError):
    """``main`` was committed (``commit``) but the version was not tagged: its files are not
    the release's, or the tag request failed."""

    def __init__(self, kind: str, message: str, commit: str) -> None:
        super().__init__(kind, message)
        self.commit = commit
