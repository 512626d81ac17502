"""The limits of ``release publish`` as typed options: timeouts, deadlines, answer size.

Declared once (``transforms.core.options.option``): ``pipelines.release`` adds them to the
``publish`` parser from this dataclass, and ``publish_to_hub`` takes it as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from transforms.core.options import mib_to_bytes, option, positive_float

HUB_GROUP = "Hub requests"
UPLOAD_SECONDS_PER_MIB = 1.0  # a request that sends a body gets this much more time per MiB


@dataclass(frozen=True)
class HubOptions:
    """How long the Hub and its storage may take, and how much they may answer."""

    http_connect_timeout: float = option(
        30.0, "seconds to connect to the Hub or its storage", parse=positive_float,
        metavar="SECONDS", group=HUB_GROUP, rows=False)
    http_read_timeout: float = option(
        120.0, "seconds the Hub or its storage may stay silent within a request before the "
               "publish fails", parse=positive_float, metavar="SECONDS", group=HUB_GROUP,
        rows=False)
    http_request_deadline: float = option(
        300.0, "total seconds one request may take, however slowly its answer arrives (a "
               "request that uploads a file gets 1 s more per MiB it sends); past it the "
               "publish fails with deadline_exceeded", parse=positive_float,
        metavar="SECONDS", group=HUB_GROUP, rows=False)
    publish_deadline: float = option(
        21600.0, "total seconds the whole publish may take (default 6 hours); past it no "
                 "request is sent or read and the publish fails with "
                 "publish_deadline_exceeded", parse=positive_float, metavar="SECONDS",
        group=HUB_GROUP, rows=False)
    http_max_answer_mib: float = option(
        16.0, "largest answer read from the Hub or its storage, in MiB, as sent and once "
              "gzip/deflate is undone; a larger one fails the publish with answer_too_large",
        parse=positive_float, metavar="MIB", group=HUB_GROUP, rows=False)

    @property
    def max_answer_bytes(self) -> int:
        return mib_to_bytes(self.http_max_answer_mib)
