"""The model-backed agent: a style (what the model sees, how it acts) over a vendor adapter (the wire).

Per step: the style builds the user turn from the observation (and the answers to the model's previous
calls), the adapter sends it with retries, and the style parses the reply into typed actions. Output that
cannot be used goes back to the model as the error of its last action, at most ``format_retries`` times
(default 2); then the episode ends with ``fail`` and the reason. Nothing the model writes is executed.

A reply cut off at the token limit is never executed, not even its complete calls: it is output that cannot
be used. A refusal (an OpenAI ``refusal`` part, Claude's ``stop_reason: "refusal"``) ends the episode with end
state ``refused`` and the model's words. Vendor safety checks on a computer call (``pending_safety_checks``)
end it with end state ``safety_check`` under ``--cua-safety-checks stop`` (the default), or are acknowledged
with the call's output under ``acknowledge``; either way each check is in the step's ``extra.model`` (the
trajectory, Allure) and the task's record. Claude's ``pause_turn`` is sent back as it came, for the model to
go on (at most ``PAUSE_CONTINUATIONS`` times a step).
"""

from __future__ import annotations

import json
import uuid
from urllib.parse import urlsplit
from typing import TYPE_CHECKING, Any, Callable

from pytest_cua.actions import Action, ActionError, Fail
from pytest_cua.agents.base import Agent, AgentContext, Refuse, SafetyStop, Turn, Usage
from pytest_cua.agents.models.conversation import Reply
from pytest_cua.agents.models.observation_settings import describe_setting
from pytest_cua.redaction import redact

if TYPE_CHECKING:
    from pytest_cua.agents.models.adapters.base import Adapter
    from pytest_cua.agents.models.pricing import PriceTable
    from pytest_cua.agents.models.settings import ModelSettings
    from pytest_cua.agents.models.styles.base import Style
    from pytest_cua.agents.models.traffic import TrafficProxy
    from pytest_cua.observations import Observation
    from pytest_cua.tasks.task import Task

FORMAT_RETRIES = 2
PAUSE_CONTINUATIONS = 3


class ModelAgent(Agent):
    """``--agent gpt-5.5``, ``--agent claude-sonnet-5``, ``--agent openai-compatible:MODEL`` ..."""

    def __init__(self, *, provider: str, model: str, build: Callable[[], tuple["Adapter", "Style"]],
                 settings: "ModelSettings", prices: "PriceTable", proxy: "TrafficProxy | None" = None) -> None:
        super().__init__()
        self.name = provider
        self.model = model
        self._build = build
        self.adapter, self.style = build()
        self.settings = settings
        self.proxy = proxy
        self.format_retries = int(settings.options.get("format_retries", FORMAT_RETRIES))
        self._prices_as_of, self._priced = prices.as_of, prices.price(model) is not None
        self.task: "Task | None" = None
        self._pending: Reply | None = None
        self._origin: str | None = None
        self._episode = ""  # set per task by start()
        self._trial: Any = None
        self._proxy_started = False

    @property
    def observation_kinds(self) -> frozenset[str]:  # type: ignore[override]  # Agent has a class attribute
        return self.settings.observe or self.style.observation_kinds

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "model": self.model, "style": self.style.name, "protocol": self.adapter.protocol,
                "prompt": self.style.prompt.describe(), "temperature": self.adapter.generation.temperature,
                "max_tokens": self.adapter.generation.max_tokens, "history": self.settings.history,
                "observation": describe_setting(self.observation_kinds, self.settings.observe is not None),
                "traffic": (self.proxy.mode if self.proxy is not None else None),
                "safety_checks": self.settings.safety_checks,
                "prices": {"as_of": self._prices_as_of, "priced": self._priced},
                **({"deprecation": self.deprecation} if self.deprecation else {})}

    def start(self, task: "Task", context: AgentContext) -> None:
        # a fresh conversation per task: a call abandoned at the last task's time limit may still be running
        # and must not write into this one (the SDK client, thread-safe, is shared)
        client = self.adapter._client
        self.adapter, self.style = self._build()
        self.adapter._client = client
        if self.proxy is not None and not self._proxy_started:
            self.adapter.client_settings.base_url = self.proxy.start()
            self.adapter.close()
            self._proxy_started = True
        self.task = task
        self._pending = None
        self._origin = None
        self._episode = uuid.uuid4().hex[:12]  # names this episode to the replay proxy (trials, retries)
        self._trial = context.options.get("trial")
        self.usage = Usage()
        self.style.begin(task, context)

    def step(self, observation: "Observation") -> Turn:
        assert self.task is not None
        adapter, style = self.adapter, self.style  # this task's, even if the next task starts meanwhile
        turn = style.turn_for(observation, self._pending)
        image = style.last_image
        usage, raws, thoughts, calls = Usage(), [], [], []
        latency, attempts = 0.0, 0
        problems: list[str] = []
        actions: list[Action] | None = None
        checks: list[dict[str, Any]] = []
        for attempt in range(self.format_retries + 1):
            reply = adapter.send(turn, what=self._what(observation), headers=self._headers(observation, attempt))
            for _ in range(PAUSE_CONTINUATIONS):
                if not (reply.paused and not reply.calls and not reply.refusal):
                    break
                usage.add(reply.usage)  # the paused part; the continuation's is added below
                raws.append(reply.raw)
                reply = adapter.send(None, what=self._what(observation), headers=self._headers(observation, attempt))
            usage.add(reply.usage)
            latency += reply.latency_s
            attempts += reply.attempts
            raws.append(reply.raw)
            calls += [{"id": c.id, "name": c.name, "arguments": c.arguments if c.arguments is not None
                       else c.raw_arguments} for c in reply.calls]
            if reply.refusal is not None:
                thoughts.append("\n".join(t for t in (reply.reasoning, f"refused: {reply.refusal}") if t))
                actions = [Refuse(reply.refusal, category=reply.refusal_category)]
                self._pending = None
                break
            try:
                if reply.truncated:
                    raise ActionError(f"the output was cut off at the limit of {adapter.generation.max_tokens} "
                                      "tokens (--cua-max-tokens), so none of it was carried out; answer shorter")
                actions = style.actions_for(reply, observation)
                if reply.reasoning or reply.text:
                    thoughts.append("\n".join(t for t in (reply.reasoning, reply.text) if t))
                checks = self._safety_checks(reply)
                if checks and self.safety_policy == "stop":
                    codes = tuple(str(c.get("code") or c.get("id")) for c in checks)
                    actions = [SafetyStop("vendor safety check(s) on the model's action: " + "; ".join(
                        f"{c.get('code')}: {c.get('message') or ''}".strip() for c in checks), checks=codes)]
                    self._pending = None
                    break
                self._pending = reply
                break
            except ActionError as exc:
                problems.append(str(exc))
                thoughts.append("\n".join(t for t in (reply.reasoning, reply.text) if t))
                turn = style.error_turn(reply, str(exc))
        if actions is None:
            self._pending = None
            actions = [Fail(f"the model's output could not be used {len(problems)} times in a row; "
                            f"last: {problems[-1]}")]
        self.usage.add(usage)
        extra: dict[str, Any] = {"model": {
            "model": self.model, "latency_s": round(latency, 3), "attempts": attempts, "usage": usage.to_dict(),
            "calls": calls, "format_errors": problems,
            **({"safety_checks": checks} if checks else {}),
            "image": ({"width": image.width, "height": image.height, "media_type": image.media_type,
                       "sha256": image.sha256} if image is not None else None),
            "coords": style.space.describe() if style.space is not None else None}}
        images = {"model": image.data} if image is not None else {}
        raw = redact(json.dumps(raws if len(raws) > 1 else raws[0], default=str, ensure_ascii=False))
        return Turn(actions, reasoning="\n".join(t for t in thoughts if t), usage=usage, raw=raw, extra=extra,
                    images=images)

    @property
    def safety_policy(self) -> str:
        return self.settings.safety_checks

    def _safety_checks(self, reply: Reply) -> list[dict[str, Any]]:
        """The vendor's safety checks on the reply's calls, each with its call and what was decided."""
        decision = "stopped" if self.safety_policy == "stop" else "acknowledged"
        return [{"id": check.get("id"), "code": check.get("code"), "message": check.get("message"),
                 "call_id": call.id, "decision": decision}
                for call in reply.calls for check in call.safety_checks if isinstance(check, dict)]

    def _what(self, observation: "Observation") -> str:
        assert self.task is not None
        return f"{self.name} {self.model}, task {self.task.id} step {observation.step + 1}"

    def _headers(self, observation: "Observation", attempt: int) -> dict[str, str]:
        if self.proxy is None or self.task is None:
            return {}
        from pytest_cua.agents.models.traffic import EPISODE_HEADER, ORIGIN_HEADER, STEP_HEADER, TASK_HEADER, TRIAL_HEADER

        headers = {TASK_HEADER: self.task.id, STEP_HEADER: f"{observation.step + 1}.{attempt}",
                   EPISODE_HEADER: self._episode}
        if self._trial is not None:  # under --cua-trials
            headers[TRIAL_HEADER] = str(self._trial)
        if self._origin is None and observation.url.startswith(("http://", "https://")):
            parts = urlsplit(observation.url)
            self._origin = f"{parts.scheme}://{parts.netloc}"  # where the task started: the environment
        if self._origin:
            headers[ORIGIN_HEADER] = self._origin
        return headers

    def close(self) -> None:
        self.adapter.close()
        if self.proxy is not None and self._proxy_started:
            self.proxy.stop()
            self._proxy_started = False
