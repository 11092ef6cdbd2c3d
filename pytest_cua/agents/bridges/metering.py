"""A bridged agent's model calls, counted and recorded like ours: ``MeteredProxy`` is the record-and-replay proxy
of the model agents (``agents.models.traffic.TrafficProxy``) with three things more:

* ``pass`` mode: forward and count, store nothing (a run with neither ``--cua-model-record`` nor
  ``--cua-model-replay``);
* the step being played: a bridged agent's own client sends none of the ``x-cua-*`` headers, so the proxy adds
  them (task, step, episode, trial) to every request made while ``step`` is set; a recording then names its task
  and step, and a replay matches by task position as it does for our agents;
* usage: each answer's ``usage`` (OpenAI Responses and chat completions, Anthropic Messages; a streamed answer's
  too) becomes a ``Usage`` priced with the run's price table, added to the step's (``take``).

``Redirect`` points the vendors' SDKs of this process at the proxies (``OPENAI_BASE_URL``,
``ANTHROPIC_BASE_URL``) only while the bridged agent runs (its constructor, ``reset``, ``predict``), so nothing
else of the run (a rubric judge) goes through them.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from pytest_cua.agents.base import Usage
from pytest_cua.agents.models.traffic import (EPISODE_HEADER, MISS_HEADER, STEP_HEADER, TASK_HEADER, TRIAL_HEADER,
                                              TrafficProxy)
from pytest_cua.agents.models.traffic.transport import Answer, Incoming

PASS = "pass"


@dataclass
class StepTag:
    """The step a bridged agent is playing: what the proxy writes into ``x-cua-*`` headers."""

    task: str
    step: int  # from 1
    episode: str
    trial: str | None = None
    requests: int = 0  # made in this step so far


@dataclass
class Meter:
    """What the calls of one step used, and the replay misses among them."""

    usage: Usage = field(default_factory=Usage)
    models: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)


class MeteredProxy(TrafficProxy):
    """``TrafficProxy`` in ``record``, ``replay`` or ``pass`` mode that tags requests with the current step and
    counts each answer's usage (priced by ``price(usage, model)``)."""

    def __init__(self, mode: str, directory: Path | None, upstream: str | None, *,
                 price: Callable[[Usage, str], float], redact: Callable[[str], str] | None = None,
                 by_position: bool = True) -> None:
        self.passing = mode == PASS
        self._scratch = Path(tempfile.mkdtemp(prefix="cua-bridge-")) if self.passing else None
        folder = self._scratch if self._scratch is not None else directory
        assert folder is not None, "record and replay need a folder"
        super().__init__("record" if self.passing else mode, folder, upstream, redact=redact,
                         by_position=by_position)
        self.mode = mode
        self._price = price
        self._meter_lock = threading.Lock()
        self._tag: StepTag | None = None
        self._meter = Meter()
        #: called (from the proxy's thread) with the message of each replay miss met while a step is tagged: a
        #: bridge whose agent retries failed calls for long (SCUBA's, 500 times) stops it there
        self.on_miss: Callable[[str], None] | None = None

    def stop(self) -> None:
        super().stop()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)

    @contextmanager
    def step(self, tag: StepTag) -> Iterator[Meter]:
        """Tag and count every request made inside the block; the meter holds what they used."""
        with self._meter_lock:
            self._tag, self._meter = tag, Meter()
        meter = self._meter
        try:
            yield meter
        finally:
            with self._meter_lock:
                if self._tag is tag:
                    self._tag = None

    # the proxy's own hooks

    def _answer(self, incoming: Incoming) -> Answer:
        with self._meter_lock:
            tag, meter = self._tag, self._meter
            if tag is not None:
                tag.requests += 1
                incoming = replace(incoming, headers=[*incoming.headers, *_headers(tag)])
        answer = super()._answer(incoming)
        if tag is not None:
            self._count(incoming, answer, meter)
        return answer

    def _store(self, incoming: Any, request: Any, answer: Answer) -> None:
        if not self.passing:
            super()._store(incoming, request, answer)

    def _count(self, incoming: Incoming, answer: Answer, meter: Meter) -> None:
        if answer.headers.get(MISS_HEADER):
            message = _error_message(answer.body) or "no recording"
            with self._meter_lock:
                meter.misses.append(message)
            if self.on_miss is not None:
                self.on_miss(message)
            return
        if answer.status >= 400:
            return
        path = incoming.target.split("?", 1)[0].rstrip("/")
        found = usage_of(path, answer.body)
        if found is None:
            return
        usage, model = found
        model = model or _request_model(incoming.body)
        usage.cost_usd = self._price(usage, model) if model else 0.0
        with self._meter_lock:
            meter.usage.add(usage)
            if model and model not in meter.models:
                meter.models.append(model)


def _headers(tag: StepTag) -> list[tuple[str, str]]:
    out = [(TASK_HEADER, tag.task), (STEP_HEADER, f"{tag.step}.{tag.requests - 1}"), (EPISODE_HEADER, tag.episode)]
    if tag.trial is not None:
        out.append((TRIAL_HEADER, tag.trial))
    return out


def usage_of(path: str, body: bytes) -> tuple[Usage, str] | None:
    """``(usage, model)`` of one answer by its path (``.../chat/completions``, ``.../responses``,
    ``.../messages``), read from its JSON or its server-sent events; None for another path or no usage."""
    from pytest_cua.agents.models.pricing import (usage_from_anthropic, usage_from_openai_chat,
                                                  usage_from_openai_responses)

    readers = {"/chat/completions": usage_from_openai_chat, "/responses": usage_from_openai_responses,
               "/messages": usage_from_anthropic}
    reader = next((r for suffix, r in readers.items() if path.endswith(suffix)), None)
    if reader is None:
        return None
    events = _events(body)
    usage: dict[str, Any] = {}
    model = ""
    for event in events:
        inner = event.get("message") or event.get("response") or {}  # Anthropic message_start, Responses events
        for source in (event, inner if isinstance(inner, Mapping) else {}):
            if isinstance(source.get("usage"), Mapping):
                usage.update({k: v for k, v in source["usage"].items() if v is not None})
            if isinstance(source.get("model"), str):
                model = source["model"]
    if not usage:
        return None
    return reader(usage), model


def _events(body: bytes) -> list[dict[str, Any]]:
    """The JSON objects of an answer: the body, or each ``data:`` line of a server-sent event stream."""
    text = body.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
        return [data] if isinstance(data, dict) else []
    except ValueError:
        pass
    out = []
    for line in text.splitlines():
        if line.startswith("data:"):
            try:
                data = json.loads(line[5:].strip())
            except ValueError:
                continue
            if isinstance(data, dict):
                out.append(data)
    return out


def _request_model(body: bytes) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return ""
    return str(data.get("model") or "") if isinstance(data, dict) else ""


def _error_message(body: bytes) -> str:
    try:
        return str(json.loads(body)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return ""


# -- pointing the vendors' SDKs at the proxies ----------------------------------------------------------------

#: the environment variables the vendors' SDKs (and OSWorld's agents) read their base URL from, with the vendor's
#: own default: the upstream when neither ``--cua-model-url`` (OpenAI-compatible) nor the variable is set
ROUTES: dict[str, tuple[str, str]] = {
    "openai": ("OPENAI_BASE_URL", "https://api.openai.com/v1"),
    "anthropic": ("ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
}
#: the API key variables a replay fills (with a placeholder) when unset: SDKs refuse to start without one
REPLAY_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
REPLAY_KEY = "replayed-no-key"


class Redirect:
    """The process environment a bridged agent runs in: each vendor's base URL variable set to its proxy (and,
    in a replay, placeholder API keys), set only inside ``with redirect.applied():``. Blocks may overlap (a call
    abandoned at a task's time limit still running when the next task starts): the variables are set by the
    first and restored by the last, never waited on."""

    def __init__(self, variables: Mapping[str, str]) -> None:
        self.variables = dict(variables)
        self._lock = threading.Lock()
        self._depth = 0
        self._saved: dict[str, str | None] = {}

    @contextmanager
    def applied(self) -> Iterator[None]:
        with self._lock:
            if self._depth == 0:
                self._saved = {name: os.environ.get(name) for name in self.variables}
                os.environ.update(self.variables)
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    for name, value in self._saved.items():
                        if value is None:
                            os.environ.pop(name, None)
                        else:
                            os.environ[name] = value


def upstreams(model_url: str | None) -> dict[str, str]:
    """Each vendor route's upstream: ``--cua-model-url`` for OpenAI's (an OpenAI-compatible server), else the
    base URL variable as this process has it, else the vendor's address."""
    out = {}
    for route, (variable, default) in ROUTES.items():
        given = model_url if route == "openai" and model_url else os.environ.get(variable)
        out[route] = (given or default).rstrip("/")
    return out
