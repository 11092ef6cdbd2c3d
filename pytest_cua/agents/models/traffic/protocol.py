"""What the traffic proxy and the agents agree on: the modes, the recording format number, the ``x-cua-*``
request headers an agent sends, the headers of a replayed answer or a miss, the origin placeholder, and the
errors (``RecordingError``, ``ReplayMiss`` and ``as_replay_miss``)."""

from __future__ import annotations

import json

MODES = ("record", "replay")
FORMAT = 1

MISS_HEADER = "x-cua-replay-miss"
MATCH_HEADER = "x-cua-replay-match"
TASK_HEADER = "x-cua-task"
ORIGIN_HEADER = "x-cua-origin"
ORIGIN_PLACEHOLDER = "{cua-origin}"
STEP_HEADER = "x-cua-step"
EPISODE_HEADER = "x-cua-episode"
TRIAL_HEADER = "x-cua-trial"
CUA_PREFIX = "x-cua-"


class RecordingError(ValueError):
    """A recording directory or file that cannot be used; the message names the file."""


class ReplayMiss(Exception):
    """A request with no recording. The proxy answers a miss with HTTP 404 and ``MISS_HEADER``; callers turn
    the SDK's error into this with :func:`as_replay_miss`, to report a miss rather than a model failure."""


def as_replay_miss(error: BaseException) -> ReplayMiss | None:
    """The :class:`ReplayMiss` behind an SDK error raised on a proxy miss, else ``None``."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if response is None or headers is None or headers.get(MISS_HEADER) != "1":
        return None
    message = str(error)
    try:
        message = json.loads(response.text)["error"]["message"]
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    return ReplayMiss(message)


def to_placeholder(body: bytes, origin: str | None) -> bytes:
    """``body`` with the environment's address written as ``ORIGIN_PLACEHOLDER``."""
    if not origin or not body:
        return body
    return body.replace(origin.encode(), ORIGIN_PLACEHOLDER.encode())
