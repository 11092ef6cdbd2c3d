"""Record and replay of model traffic through a loopback HTTP proxy.

A model agent points its SDK's ``base_url`` at a :class:`TrafficProxy` on ``127.0.0.1``. The proxy works with
every SDK unchanged (OpenAI's moved from httpx to httpx2; patching a transport breaks on such a move):

* ``record``: each request is forwarded to ``upstream`` and each exchange is written to ``directory`` as one
  JSON file. Responses with status 429 or >= 500 are passed back to the SDK (which retries as it would against
  the vendor) but are **not recorded**: a replay must not replay an outage. An unreachable upstream is answered
  with 502 and is not recorded either.
* ``replay``: every file of ``directory`` is loaded at :meth:`TrafficProxy.start`; requests are answered from
  them and nothing is ever forwarded (a replay proxy has no HTTP client at all). A request with no recording is
  a *miss*: HTTP 404 with ``x-cua-replay-miss: 1`` and an error body both SDKs turn into ``NotFoundError``.

Matching in replay, in this order:

1. by :func:`request_key`: the recordings of one key are answered in recorded order, each at most once;
   a key used more times than it was recorded falls through to 2;
2. by position: the n-th request of the task named by the ``x-cua-task`` header (n counted per task by this
   proxy, misses included) gets the task's n-th recorded exchange, if that recording has the same method and
   path and was not answered yet (typically the screenshot changed by a pixel). The answer carries
   ``x-cua-replay-match: position`` (``key`` for a key match);
3. otherwise a miss.

Episodes: the agent names each episode (``x-cua-episode``, new for every task it starts) and its trial
(``x-cua-trial``, under ``--cua-trials``). "Answered" and the position count are per episode, so every trial
and every retry of a task replays the task's traffic from its beginning; among the recordings that match, those
recorded in the same trial come first (recorded with ``--cua-trials 3``, trial 2 replays trial 2's answers;
recorded once, every trial replays that one).

The agent sends ``x-cua-task`` and ``x-cua-step`` on each request, and ``x-cua-origin`` with the address of the
environment (the embedded org listens on a new port each run): that address is written as ``{cua-origin}`` in
keys and in stored requests and responses, and a replay answers with the current one, so a recorded
``goto("https://127.0.0.1:41235/lightning/...")`` replays against today's org. Every ``x-cua-*`` header is
stripped before forwarding. Auth headers (``authorization``, ``x-api-key``, ...) are forwarded in record mode but
never stored and never part of a key; their values are also scrubbed from every file written, should they appear
elsewhere.

A recording file (``format`` 1)::

    {"format": 1, "key": "<sha256>", "task": "T" | null, "step": "3" | null,
     "seq": 1,            # the n-th recorded exchange with this key in the recording proxy (from 1)
     "task_seq": 2,       # the n-th recorded exchange of this task in the recording proxy (from 1), or null
     "request": {"method": "POST", "base_path": "/v1", "path": "/chat/completions",
                 "headers": {"anthropic-version": ...}, "body": <normalised JSON, images as {"$image": sha}>},
     "response": {"status": 200, "headers": {"content-type": ...}, "body": <JSON> (or "body_text": "...")},
     "recorded_at": "2026-01-01T00:00:00.000000+00:00"}

Images are stored once, as ``directory/images/<sha256>.<ext>``. Files get unique names and are written through a
temporary file and a rename, so several processes (xdist workers) can record into one directory at once.

Every string of a stored request or response passes through ``redact`` when given (pass
``pytest_cua.redaction.redact``): ``sid=...``, passwords and tokens must never reach disk. Keys are computed on
the redacted form too, so a hash on disk cannot be used to guess a short secret, and a per-run secret does not
change the key; give the same ``redact`` to the recording and the replaying proxy. Redaction also applies to
recorded responses, so a replay answers with the redacted text.

Modules:

* ``protocol``: the modes, the ``x-cua-*`` headers, the origin placeholder, ``RecordingError`` and ``ReplayMiss``;
* ``keys``: a request normalised to what decides the answer, and ``request_key``;
* ``credentials``: credentials kept off disk and the ``redact`` applied to every stored string;
* ``recordings``: the recording files (written atomically, loaded for replay) and the images beside them;
* ``transport``: the loopback HTTP server, requests and answers, the headers forwarded and passed back;
* ``proxy``: ``TrafficProxy``, which records and replays.

May import only the standard library (and ``httpx``, to record): the agent passes its ``redact`` in. Never
``episode``, ``results`` nor the wiring.
"""

from __future__ import annotations

from pytest_cua.agents.models.traffic.keys import KEY_HEADERS, VOLATILE_FIELDS, request_key
from pytest_cua.agents.models.traffic.protocol import (EPISODE_HEADER, FORMAT, MATCH_HEADER, MISS_HEADER, MODES,
                                                       ORIGIN_HEADER, ORIGIN_PLACEHOLDER, STEP_HEADER, TASK_HEADER,
                                                       TRIAL_HEADER, RecordingError, ReplayMiss, as_replay_miss)
from pytest_cua.agents.models.traffic.proxy import TrafficProxy

__all__ = [
    "FORMAT",
    "KEY_HEADERS",
    "MATCH_HEADER",
    "MISS_HEADER",
    "MODES",
    "STEP_HEADER",
    "EPISODE_HEADER",
    "TRIAL_HEADER",
    "TASK_HEADER",
    "ORIGIN_HEADER",
    "ORIGIN_PLACEHOLDER",
    "VOLATILE_FIELDS",
    "RecordingError",
    "ReplayMiss",
    "TrafficProxy",
    "as_replay_miss",
    "request_key",
]
