"""The observe -> agent -> act loop, its limits and its end states.

The loop enforces the step limit and the time limit itself, so that it always returns and the environment's
rollback (a fixture teardown) always runs; pytest-timeout stays a backstop. An action that fails becomes the
``last_error`` of the next observation. Only a broken environment or agent raises, as an error outcome.
"""

from __future__ import annotations

import concurrent.futures
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from pytest_cua.actions import Action, ActionError, ActionResult, Answer, Ask, Done, Fail
from pytest_cua.agents.base import Agent, AgentContext, AgentError, Turn, Usage
from pytest_cua.envs.base import EnvironmentCrash, EnvironmentError_
from pytest_cua.trajectory import StepRecord, TrajectoryRecorder

if TYPE_CHECKING:
    from pytest_cua.agents.models.ledger import CostLedger
    from pytest_cua.envs.base import Environment
    from pytest_cua.human import HumanHandler
    from pytest_cua.tasks import Task

# how an episode ended; only "error" is not the agent's doing
END_STATES = ("done", "answer", "fail", "step_limit", "time_limit", "budget")

NO_ACTION_ERROR = "the agent returned no action; return at least one action, or done/answer/fail"


@dataclass
class EpisodeResult:
    task_id: str
    end: str = ""  # one of END_STATES
    answer: str | None = None
    fail_reason: str | None = None
    steps: int = 0
    actions: int = 0
    failed_actions: int = 0
    asks: int = 0
    agent_s: float = 0.0
    env_s: float = 0.0
    wall_s: float = 0.0
    usage: Usage = field(default_factory=Usage)
    recorder: TrajectoryRecorder | None = None
    budget_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"end": self.end, "answer": self.answer, "fail_reason": self.fail_reason or self.budget_reason,
                "steps": self.steps,
                "actions": self.actions, "failed_actions": self.failed_actions, "asks": self.asks,
                "agent_s": round(self.agent_s, 3), "env_s": round(self.env_s, 3), "wall_s": round(self.wall_s, 3),
                "tokens_in": self.usage.tokens_in, "tokens_out": self.usage.tokens_out,
                "cost_usd": round(self.usage.cost_usd, 6)}


class EpisodeError(Exception):
    """Raised out of the loop for infrastructure failures; carries the partial result."""

    def __init__(self, cause: BaseException, result: EpisodeResult) -> None:
        self.cause = cause
        self.result = result
        self.error_kind = getattr(cause, "error_kind", "environment")
        super().__init__(f"{type(cause).__name__}: {cause}")


def as_turn(value: Any) -> Turn:
    """Accept a Turn, a list of actions or a single action from ``Agent.step``."""
    if isinstance(value, Turn):
        return value
    if isinstance(value, Action):
        return Turn(actions=[value])
    if isinstance(value, (list, tuple)) and all(isinstance(a, Action) for a in value):
        return Turn(actions=list(value))
    raise AgentError(f"Agent.step must return a Turn or a list of actions, got {type(value).__name__}")


class Episode:
    """Runs one task: ``Episode(task, env, agent, ...).run()``."""

    def __init__(self, task: "Task", env: "Environment", agent: Agent, *, context: AgentContext,
                 recorder: TrajectoryRecorder | None = None, human: "HumanHandler | None" = None,
                 max_steps: int | None = None, time_limit_s: float | None = None,
                 max_cost_usd: float | None = None, ledger: "CostLedger | None" = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.task = task
        self.env = env
        self.agent = agent
        self.context = context
        self.recorder = recorder or TrajectoryRecorder(None)
        self.human = human
        self.max_steps = max_steps if max_steps is not None else task.limits.max_steps
        self.time_limit_s = time_limit_s if time_limit_s is not None else task.limits.time_limit_s
        self.max_cost_usd = max_cost_usd
        self.ledger = ledger
        self.clock = clock
        self.result = EpisodeResult(task_id=task.id, recorder=self.recorder)

    # -- timing helpers -----------------------------------------------------------------------------------
    def _remaining(self) -> float:
        return self.deadline - self.clock()

    def _agent_call(self, pool: concurrent.futures.Executor, fn: Callable[..., Any], *args: Any) -> Any:
        """Call the agent with the remaining time as a bound; return ``_TIMEOUT`` when it runs out."""
        remaining = self._remaining()
        if remaining <= 0:
            return _TIMEOUT
        started = self.clock()
        future = pool.submit(fn, *args)
        try:
            return future.result(timeout=remaining)
        except concurrent.futures.TimeoutError:
            return _TIMEOUT
        except AgentError:
            raise
        except Exception as exc:
            raise AgentError(f"agent {self.agent.name!r} raised {type(exc).__name__}: {exc}") from exc
        finally:
            self.result.agent_s += self.clock() - started

    def _env_call(self, fn: Callable[..., Any], *args: Any) -> Any:
        started = self.clock()
        try:
            return fn(*args)
        except EnvironmentError_:
            raise
        except Exception as exc:
            raise EnvironmentCrash(f"{self.env.name}: {type(exc).__name__}: {exc}") from exc
        finally:
            self.result.env_s += self.clock() - started

    # -- the loop -----------------------------------------------------------------------------------------
    def run(self) -> EpisodeResult:
        started = self.clock()
        self.deadline = started + self.time_limit_s
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"cua-agent-{self.task.id}")
        try:
            self._loop(pool)
        except (AgentError, EnvironmentError_) as exc:
            self.result.wall_s = self.clock() - started
            raise EpisodeError(exc, self.result) from exc
        finally:
            # never wait for an agent stuck past the deadline: its thread is abandoned
            pool.shutdown(wait=False, cancel_futures=True)
        self.result.wall_s = self.clock() - started
        return self.result

    def _loop(self, pool: concurrent.futures.Executor) -> None:
        r = self.result
        if self._agent_call(pool, self.agent.start, self.task, self.context) is _TIMEOUT:
            r.end = "time_limit"
            return
        last_error: str | None = None
        human_reply: str | None = None
        for index in range(self.max_steps):
            if self._remaining() <= 0:
                r.end = "time_limit"
                return
            step_started = time.time()
            agent_before, env_before = r.agent_s, r.env_s
            observation = self._env_call(self.env.observe, self.context.observation_kinds)
            observation.step = index
            observation.last_error = last_error
            observation.human_reply = human_reply
            human_reply = None
            reply = self._agent_call(pool, self.agent.step, observation)
            if reply is _TIMEOUT:
                r.end = "time_limit"
                return
            turn = as_turn(reply)
            r.usage.add(turn.usage)
            run_total = self._charge(turn.usage.cost_usd)
            r.steps = index + 1
            results: list[ActionResult] = []
            last_error = None
            if not turn.actions:
                last_error = NO_ACTION_ERROR
            for action in turn.actions:
                if self._remaining() <= 0:
                    r.end = "time_limit"
                    break
                r.actions += 1
                if action.terminal:
                    results.append(ActionResult(action))
                    self._finish(action)
                    break
                if isinstance(action, Ask):
                    human_reply = self._ask(action)
                    results.append(ActionResult(action, detail={"reply": human_reply}))
                    continue
                result = self._env_call(self.env.act, action)
                results.append(result)
                if not result.ok:
                    r.failed_actions += 1
                    last_error = f"{action.describe()} failed: {result.error}"
                    break  # the rest of this turn was planned on a state that did not happen
            self.recorder.record_step(StepRecord(
                index=index, observation=observation, actions=list(turn.actions), results=results,
                reasoning=turn.reasoning, raw=turn.raw, usage=turn.usage, agent_s=r.agent_s - agent_before,
                env_s=r.env_s - env_before, started_at=step_started, extra=dict(turn.extra), images=dict(turn.images)))
            if r.end:
                return
            if self._over_budget(run_total):
                return
        r.end = "step_limit"

    # -- cost caps ----------------------------------------------------------------------------------------
    def _charge(self, usd: float) -> float | None:
        """Add a step's cost to the run's ledger; the run's total after it (None without a ledger)."""
        if self.ledger is None:
            return None
        if usd > 0:
            return self.ledger.add(usd, task_id=self.task.id, worker=str(self.context.options.get("worker_id", "")))
        return self.ledger.total()

    def _over_budget(self, run_total: float | None) -> bool:
        r = self.result
        if self.max_cost_usd is not None and r.usage.cost_usd >= self.max_cost_usd:
            r.end, r.budget_reason = "budget", (f"the task cost ${r.usage.cost_usd:.4f}, over --cua-max-cost-task "
                                               f"${self.max_cost_usd:g}")
        elif run_total is not None and self.ledger is not None and self.ledger.cap_usd is not None \
                and run_total >= self.ledger.cap_usd:
            r.end, r.budget_reason = "budget", (f"the run has cost ${run_total:.4f}, over --cua-max-cost "
                                               f"${self.ledger.cap_usd:g}")
        return r.end == "budget"

    def _finish(self, action: Action) -> None:
        if isinstance(action, Answer):
            self.result.end, self.result.answer = "answer", action.text
        elif isinstance(action, Fail):
            self.result.end, self.result.fail_reason = "fail", action.reason
        elif isinstance(action, Done):
            self.result.end = "done"
        else:  # pragma: no cover - every terminal action is listed above
            raise ActionError(f"unhandled terminal action {action.kind!r}")

    def _ask(self, action: Ask) -> str:
        self.result.asks += 1
        if self.human is None:
            return NO_HUMAN
        answer = self.human.answer(self.task, action.question)
        return answer if answer is not None else NO_HUMAN


NO_HUMAN = "No human is available to answer; continue on your own."
_TIMEOUT = object()
