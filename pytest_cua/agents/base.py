"""The Agent protocol: ``start(task, context)``, ``step(observation)``, ``usage``.

Agent output is data. A model-backed agent turns its raw output into typed actions with
``pytest_cua.agents.action_parser`` and never executes it.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Sequence

from pytest_cua.actions import Fail

if TYPE_CHECKING:
    from pytest_cua.actions import Action
    from pytest_cua.envs.base import Environment
    from pytest_cua.observations import Observation
    from pytest_cua.tasks.task import Task


@dataclass
class Usage:
    """Tokens and cost of one agent over one task (or one step), normalised across vendors.

    ``tokens_in`` counts every input token, cached ones included (OpenAI's ``input_tokens``; Anthropic's
    ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens``). ``cached_in`` is the part read
    from a prompt cache, ``cache_write`` the part written to one; ``reasoning`` is the part of ``tokens_out``
    spent on hidden reasoning (billed as output). ``requests`` counts model calls, retries included.
    """

    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    cached_in: int = 0
    cache_write: int = 0
    reasoning: int = 0
    requests: int = 0

    def add(self, other: "Usage") -> None:
        self.tokens_in += other.tokens_in
        self.tokens_out += other.tokens_out
        self.cost_usd += other.cost_usd
        self.cached_in += other.cached_in
        self.cache_write += other.cache_write
        self.reasoning += other.reasoning
        self.requests += other.requests

    def to_dict(self) -> dict[str, Any]:
        return {"tokens_in": self.tokens_in, "tokens_out": self.tokens_out, "cached_in": self.cached_in,
                "cache_write": self.cache_write, "reasoning": self.reasoning, "requests": self.requests,
                "cost_usd": round(self.cost_usd, 6)}

    def totals(self) -> dict[str, Any]:
        """The headline figures of a task's summary and record: tokens in and out, cost."""
        return {"tokens_in": self.tokens_in, "tokens_out": self.tokens_out, "cost_usd": round(self.cost_usd, 6)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Usage":
        """Read ``to_dict`` (or any mapping holding some of the fields) back; other keys are ignored."""
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


class Refuse(Fail, kind="refuse", terminal=True):
    """The model refused the task (an OpenAI ``refusal`` part, Claude's ``stop_reason: "refusal"``): its words
    in ``reason``. Ends the episode with end state ``refused``: an agent failure, never done, never an answer."""

    end_state: ClassVar[str] = "refused"
    category: str | None = None  # the vendor's category of the refusal, when it gives one


class SafetyStop(Fail, kind="safety_stop", terminal=True):
    """A vendor safety check (OpenAI's ``pending_safety_checks``) stopped the episode under ``--cua-safety-checks
    stop``: ``checks`` are their codes, ``reason`` their messages. End state ``safety_check``."""

    end_state: ClassVar[str] = "safety_check"
    checks: tuple[str, ...] = ()


@dataclass
class Turn:
    """One agent step: the actions it chose, its reasoning text and what the step cost.

    The episode records it as a trajectory step (``pytest_cua.episode.trajectory.StepRecord``, a Turn with the
    observation, the results and the timings), which serialises it."""

    actions: list["Action"]
    reasoning: str = ""
    usage: Usage = field(default_factory=Usage)
    raw: str | None = None  # the model's raw output, for the trajectory (redacted on write)
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. the model call: latency, usage, image sent
    images: dict[str, bytes] = field(default_factory=dict)  # extra images of the step (the one the model saw)


@dataclass
class AgentContext:
    """What an agent may use besides observations.

    ``env`` is given to privileged built-in agents (``oracle``); model-backed agents must not touch it.
    ``solve`` runs the task template's solver against the environment; ``demonstration`` returns the
    task's demonstration actions; ``demos`` says whether demonstration text goes into the prompt.
    """

    env: "Environment | None" = None
    observation_kinds: frozenset[str] = frozenset()
    demos: bool = False
    solve: Callable[[], None] | None = None
    demonstration: Callable[[], Sequence["Action"]] | None = None
    options: dict[str, Any] = field(default_factory=dict)


class AgentError(Exception):
    """The agent itself broke (model API down, bad configuration): an error outcome, not a failure."""

    error_kind = "agent"


class Agent(abc.ABC):
    name: str = "agent"
    model: str | None = None
    #: the observation kinds the agent wants when neither --cua-observe nor the suite says (None: the default)
    observation_kinds: frozenset[str] | None = None
    #: a deprecated model (``agents.deprecation``): its shutdown date and replacement, in every record
    deprecation: dict[str, Any] | None = None

    def __init__(self) -> None:
        self.usage = Usage()

    @abc.abstractmethod
    def start(self, task: "Task", context: AgentContext) -> None:
        """Begin a task; called once before the first step (reset any per-task state here)."""

    @abc.abstractmethod
    def step(self, observation: "Observation") -> "Turn | list[Action]":
        """Choose the next actions. A terminal action (done, answer, fail) ends the episode."""

    def close(self) -> None:
        """Release resources at the end of the session."""

    def describe(self) -> dict[str, Any]:
        noted = {"deprecation": self.deprecation} if self.deprecation else {}
        return {"name": self.name, "model": self.model, **noted}
