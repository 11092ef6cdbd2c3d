"""What every vendor adapter shares: the conversation, the call with retries, usage and price."""

from __future__ import annotations

import abc
import base64
import functools
import io
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from pytest_cua.agents.base import AgentError, Usage
from pytest_cua.agents.models.conversation import Call, ComputerTool, Reply, ToolSpec, UserTurn
from pytest_cua.agents.models.retry import RetryPolicy, call_with_retries

OMITTED_IMAGE = "[an earlier screenshot, omitted to keep the prompt short]"
OMITTED_OBSERVATION = "[the element list of an earlier step, omitted to keep the prompt short]"


class MissingSDK(AgentError):
    pass


def import_sdk(name: str) -> Any:
    """The vendor SDK, or an error that says how to install it."""
    import importlib

    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise MissingSDK(f"the {name!r} package is not installed: pip install 'pytest-cua[models]'") from exc


@dataclass
class ClientSettings:
    """How to reach the vendor: key, base URL, per-attempt timeout and the retry budget."""

    api_key: str = field(repr=False)
    base_url: str | None = None
    timeout_s: float = 120.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    sleep: Callable[[float], None] = time.sleep  # between retries (tests give a recorder)


@dataclass
class Generation:
    """Sampling settings sent with every request."""

    temperature: float | None = 1.0  # None: the model takes no temperature (reasoning models)
    max_tokens: int = 4096
    options: dict[str, Any] = field(default_factory=dict)


@functools.lru_cache(maxsize=1)
def placeholder_png() -> str:
    """A tiny grey PNG as a data URL: stands in for old screenshots where the protocol needs an image."""
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (16, 9), (128, 128, 128)).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


class Adapter(abc.ABC):
    """One vendor protocol. ``reset`` starts a conversation, ``send`` adds a user turn and returns the reply."""

    vendor: str = ""
    protocol: str = ""

    def __init__(self, model: str, client: ClientSettings, generation: Generation, *, keep_images: int = 3,
                 price: Callable[[Usage, str], float] | None = None) -> None:
        self.model = model
        self.client_settings = client
        self.generation = generation
        #: the steps whose observations (images, element lists) stay in the prompt: the current one and the
        #: ``--cua-history`` past ones; older ones become a note (or a placeholder image where one is required)
        self.keep_images = max(1, keep_images)
        self.price = price
        self.system = ""
        self.tools: list[ToolSpec] = []
        self.computer: ComputerTool | None = None
        self.messages: list[dict[str, Any]] = []
        #: per user turn that carried an observation, oldest first: its parts and what each becomes with age
        self._steps: list[list[tuple[dict[str, Any], dict[str, Any]]]] = []
        self._client: Any = None
        self.last_request: dict[str, Any] | None = None

    # -- conversation ----------------------------------------------------------------------------------
    def reset(self, system: str, tools: list[ToolSpec], computer: ComputerTool | None = None) -> None:
        self.system, self.tools, self.computer = system, list(tools), computer
        self.messages = []
        self._steps = []

    def send(self, turn: UserTurn | None, *, what: str, headers: dict[str, str] | None = None) -> Reply:
        """Add ``turn`` to the conversation, call the model (with retries) and add its reply. ``None``: send
        the conversation as it is (Claude's ``pause_turn``: the paused reply goes back for the model to go on)."""
        if turn is not None:
            self._steps.append([])
            self._append_user(turn)
            if not self._steps[-1]:
                self._steps.pop()  # a turn without an observation (a note on unusable output): no step
        self._prune()
        request = self._request()
        self.last_request = request
        client = self.client()
        started = time.perf_counter()
        response, attempts = call_with_retries(lambda: self._create(client, request, headers or {}),
                                               self.client_settings.retry, what=what,
                                               sleep=self.client_settings.sleep)
        reply = self._parse(response)
        reply.latency_s = time.perf_counter() - started
        reply.attempts = attempts
        reply.usage.requests = attempts
        reply.request_id = getattr(response, "_request_id", None)
        if self.price is not None:
            reply.usage.cost_usd = self.price(reply.usage, self.model)
        return reply

    def observation_part(self, part: dict[str, Any]) -> dict[str, Any]:
        """Remember a text part that holds an observation (``{"type": ..., "text": ...}``), so that it leaves the
        prompt with its step."""
        return self.aging(part, {"type": part["type"], "text": OMITTED_OBSERVATION})

    def aging(self, part: dict[str, Any], replacement: dict[str, Any]) -> dict[str, Any]:
        """Remember a part (an image, an observation's text) of the turn being added: once the step is older
        than ``keep_images`` steps, the part is changed in place into ``replacement``."""
        if not self._steps:
            self._steps.append([])
        self._steps[-1].append((part, replacement))
        return part

    def _prune(self) -> None:
        """The observations of the steps before the newest ``keep_images`` become their replacements (each
        part changed in place: the messages keep their shape, so every vendor's format stays valid)."""
        for step in self._steps[:-self.keep_images]:
            for part, replacement in step:
                part.clear()
                part.update(replacement)
            step.clear()

    def client(self) -> Any:
        if self._client is None:
            self._client = self._make_client()
        return self._client

    def close(self) -> None:
        close = getattr(self._client, "close", None)
        if callable(close):
            close()
        self._client = None

    # -- per vendor ------------------------------------------------------------------------------------
    @abc.abstractmethod
    def _make_client(self) -> Any: ...

    @abc.abstractmethod
    def _append_user(self, turn: UserTurn) -> None: ...

    @abc.abstractmethod
    def _request(self) -> dict[str, Any]: ...

    @abc.abstractmethod
    def _create(self, client: Any, request: dict[str, Any], headers: dict[str, str]) -> Any: ...

    @abc.abstractmethod
    def _parse(self, response: Any) -> Reply: ...


def openai_client(settings: ClientSettings) -> Any:
    """The OpenAI SDK's client for ``settings`` (its own retries off: ``retry.py`` is the one policy)."""
    openai = import_sdk("openai")
    return openai.OpenAI(api_key=settings.api_key, base_url=settings.base_url, max_retries=0,
                         timeout=settings.timeout_s)


def function_call(call_id: str, name: str, raw: Any) -> Call:
    """A function call from its JSON-encoded arguments; ``error`` says why they are unusable."""
    text = raw if isinstance(raw, str) else json.dumps(raw)
    call = Call(id=call_id, name=name, arguments=None, raw_arguments=text)
    try:
        value = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        call.error = f"the arguments of {name} are not valid JSON ({exc.msg} at position {exc.pos})"
        return call
    if not isinstance(value, dict):
        call.error = f"the arguments of {name} must be a JSON object, got {type(value).__name__}"
        return call
    call.arguments = value
    return call


def dump(obj: Any, *, exact: bool = False) -> Any:
    """An SDK object as JSON data (pydantic models), anything else as it is. ``exact``: the fields the API
    sent, nulls included (to send an item back as it came); else without the unset and null ones."""
    to_dict = getattr(obj, "model_dump", None)
    if callable(to_dict):
        return to_dict(mode="json", exclude_unset=True) if exact else to_dict(mode="json", exclude_none=True)
    return obj
