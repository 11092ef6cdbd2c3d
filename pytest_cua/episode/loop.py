"""The observe -> agent -> act loop, its limits and its end states.

The loop enforces the step limit and the time limit itself, so that it always returns and the environment's
rollback (a fixture teardown) always runs; pytest-timeout stays a backstop. An action that fails becomes the
``last_error`` of the next observation. Only a broken environment or agent raises, as an error outcome.

Human help (``pytest_cua.episode.human``): before each agent step the human may act instead of the agent, scripted
(``--cua-human FILE``: at the agent's step N, these actions through the environment) or live
(``--cua-takeover``: a person asked for control in the VNC session; the agent is paused until they give it
back, their recorded input replayed nowhere, only recorded). Each human action is one trajectory step with
``extra.by == "human"``; the agent's next observation says what the human did (``human_reply``). The time a
human has control is not taken from the agent's time limit, and human steps do not count against its step
limit. The result counts ``takeovers``, ``human_steps`` and ``agent_steps``; ``steps`` and ``observation.step``
number every trajectory step (agent and human alike).
"""

from __future__ import annotations

import concurrent.futures
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from pytest_cua.actions import Action, ActionError, ActionResult, Answer, Ask, Done, Fail
from pytest_cua.observations import Observation
from pytest_cua.agents.base import Agent, AgentContext, AgentError, Turn, Usage
from pytest_cua.envs.base import EnvironmentCrash, EnvironmentError_
from pytest_cua.episode.trajectory import StepRecord, TrajectoryRecorder

if TYPE_CHECKING:
    from pytest_cua.agents.models.ledger import CostLedger
    from pytest_cua.envs.base import Environment
    from pytest_cua.envs.docker.takeover import TakeoverSession
    from pytest_cua.episode.human import HumanHandler, ScriptedTakeover
    from pytest_cua.tasks.task import Task

# how an episode ended; only "error" is not the agent's doing
END_STATES = ("done", "answer", "fail", "refused", "safety_check", "step_limit", "time_limit", "budget")

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
    takeovers: int = 0  # times a human acted instead of the agent (scripted or live)
    human_steps: int = 0  # trajectory steps by the human (one per action)
    agent_steps: int = 0  # trajectory steps by the agent; steps = agent_steps + human_steps
    human_s: float = 0.0  # time the human had control (not charged to the agent's time limit)
    help_notes: list[str] = field(default_factory=list)  # e.g. a scripted takeover the episode never reached
    #: vendor safety checks the model's calls carried (``extra.model.safety_checks`` of the agent's turns)
    safety_checks: list[dict[str, Any]] = field(default_factory=list)

    def help_fields(self) -> dict[str, Any]:
        """The human-help figures of the task's record (``pytest_cua.results.records``)."""
        return {"takeovers": self.takeovers, "human_steps": self.human_steps, "agent_steps": self.agent_steps,
                "human_s": round(self.human_s, 3), **({"help_notes": list(self.help_notes)} if self.help_notes
                                                      else {})}

    def to_dict(self) -> dict[str, Any]:
        return {"end": self.end, "answer": self.answer, "fail_reason": self.fail_reason or self.budget_reason,
                "steps": self.steps, **self.help_fields(),
                "actions": self.actions, "failed_actions": self.failed_actions, "asks": self.asks,
                "agent_s": round(self.agent_s, 3), "env_s": round(self.env_s, 3), "wall_s": round(self.wall_s, 3),
                **({"safety_checks": list(self.safety_checks)} if self.safety_checks else {}),
                **self.usage.totals()}


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
        scripted: tuple["ScriptedTakeover", ...] = getattr(human, "takeovers_for", lambda _id: ())(task.id)
        self._script = {t.at_step: t for t in scripted}
        self._live_settings = getattr(human, "live", None)
        self._live: "TakeoverSession | None" = None
        self._helping = bool(self._script) or self._live_settings is not None
        self._index = 0  # the next trajectory step's index (agent and human steps alike)

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

    def _env_call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        started = self.clock()
        try:
            return self._call_env(fn, *args, **kwargs)
        finally:
            self.result.env_s += self.clock() - started

    def _call_env(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call the environment (or the takeover session); any crash is the environment's."""
        try:
            return fn(*args, **kwargs)
        except EnvironmentError_:
            raise
        except Exception as exc:
            raise EnvironmentCrash(f"{self.env.name}: {type(exc).__name__}: {exc}") from exc

    def _next_index(self) -> int:
        index, self._index = self._index, self._index + 1
        return index

    # -- the loop -----------------------------------------------------------------------------------------
    def run(self) -> EpisodeResult:
        started = self.clock()
        self.deadline = started + self.time_limit_s
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"cua-agent-{self.task.id}")
        try:
            self._start_live()
            self._loop(pool)
        except (AgentError, EnvironmentError_) as exc:
            self.result.wall_s = self.clock() - started
            raise EpisodeError(exc, self.result) from exc
        finally:
            # never wait for an agent stuck past the deadline: its thread is abandoned
            pool.shutdown(wait=False, cancel_futures=True)
            if self._live is not None:
                self._live.end_task()
            for step in sorted(self._script):
                self.result.help_notes.append(f"scripted takeover at_step {step} not played: the agent took "
                                              f"{self.result.agent_steps} step(s)")
        self.result.wall_s = self.clock() - started
        return self.result

    def _loop(self, pool: concurrent.futures.Executor) -> None:
        r = self.result
        if self._agent_call(pool, self.agent.start, self.task, self.context) is _TIMEOUT:
            r.end = "time_limit"
            return
        last_error: str | None = None
        human_reply: str | None = None
        while r.agent_steps < self.max_steps:
            if self._remaining() <= 0:
                r.end = "time_limit"
                return
            note = self._human_help()
            if note is not None:
                human_reply = note if human_reply is None else f"{human_reply}\n{note}"
            index = self._next_index()
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
            r.safety_checks += list((turn.extra.get("model") or {}).get("safety_checks") or [])
            run_total = self._charge(turn.usage.cost_usd)
            r.agent_steps += 1
            r.steps = self._index
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
            self.recorder.record_step(StepRecord.of_turn(
                turn, index=index, observation=observation, results=results, agent_s=r.agent_s - agent_before,
                env_s=r.env_s - env_before, started_at=step_started, extra={"by": "agent"} if self._helping else None))
            if r.end:
                return
            if self._over_budget(run_total):
                return
        r.end = "step_limit"

    # -- human help ---------------------------------------------------------------------------------------
    def _start_live(self) -> None:
        """--cua-takeover: make the task watchable (VNC, input recording); an environment without a desktop
        container runs without live takeover and says so."""
        live = self._live_settings
        if live is None:
            return
        from pytest_cua.envs.docker.takeover import TakeoverError, session

        takeover = session(live.directory, live.worker, xdist=live.xdist)
        try:
            self._call_env(takeover.begin_task, self.env, self.task.id)
        except (TakeoverError, EnvironmentError_) as exc:
            cause = exc.__cause__ if isinstance(exc, EnvironmentError_) and exc.__cause__ is not None else exc
            if not isinstance(cause, TakeoverError):
                raise
            self.result.help_notes.append(f"--cua-takeover: {cause}")
            import warnings

            warnings.warn(f"task {self.task.id}: --cua-takeover is off for this task: {cause}", stacklevel=1)
            return
        self._live = takeover

    def _human_help(self) -> str | None:
        """The human's turn before the agent's next step, if they have one: what they did, for the agent."""
        notes = []
        planned = self._script.pop(self.result.agent_steps, None)
        if planned is not None:
            notes.append(self._scripted_takeover(planned))
        if self._live is not None and self._call_env(self._live.requested):
            notes.append(self._live_takeover())
        return "\n".join(n for n in notes if n) or None

    def _scripted_takeover(self, planned: "ScriptedTakeover") -> str:
        """--cua-human FILE: play the scripted actions through the environment, one human step each."""
        r = self.result
        started = self.clock()
        r.takeovers += 1
        done: list[ActionResult] = []
        for action in planned.actions:
            step_started = time.time()
            observation = self._call_env(self.env.observe, self.context.observation_kinds)
            result = self._call_env(self.env.act, action)
            done.append(result)
            self._record_human(observation, action, result, "script", step_started)
        self._give_back(started)
        return _human_note(r.takeovers, done)

    def _live_takeover(self) -> str:
        """--cua-takeover: the human has control until they give it back (or the task's time limit, as a
        bound); every recorded action is one human step, the screen before it attached when known."""
        assert self._live is not None
        live, r = self._live, self.result
        from pytest_cua.envs.docker.takeover import POLL_S

        started = self.clock()
        r.takeovers += 1
        self._call_env(live.grant)
        observation = self._call_env(self.env.observe, self.context.observation_kinds)
        bound = started + max(self.time_limit_s, 60.0)
        done: list[ActionResult] = []
        why = "given back"
        while True:
            step_started = time.time()
            recorded, back = self._call_env(live.human_input)
            for data in recorded:
                try:
                    action = Action.from_dict(data)
                except ActionError as exc:  # the recorder's own output: never expected
                    r.help_notes.append(f"takeover {r.takeovers}: a recorded input was not an action: {exc}")
                    continue
                result = ActionResult(action, ok=True, detail={"recorded": True})
                done.append(result)
                self._record_human(observation, action, result, "vnc", step_started)
                observation = Observation(extra={"note": "recorded with the action before: no screenshot between"})
            if back:
                break
            if self.clock() > bound:
                why = f"the takeover's bound of {bound - started:.0f} s passed"
                break
            if recorded:
                observation = self._call_env(self.env.observe, self.context.observation_kinds)
            time.sleep(POLL_S)
        self._call_env(live.release, why)
        self._give_back(started)
        return _human_note(r.takeovers, done)

    def _record_human(self, observation: Observation, action: Action, result: ActionResult, source: str,
                      step_started: float) -> None:
        r = self.result
        index = self._next_index()
        observation.step = index
        r.human_steps += 1
        r.steps = self._index
        r.actions += 1
        if not result.ok:
            r.failed_actions += 1
        self.recorder.record_step(StepRecord(
            index=index, observation=observation, actions=[action], results=[result],
            reasoning=f"by: human (takeover {r.takeovers}, {'scripted: --cua-human' if source == 'script' else 'VNC'})",
            started_at=step_started, extra={"by": "human", "takeover": r.takeovers, "source": source}))

    def _give_back(self, started: float) -> None:
        """The human's time is not the agent's: the deadline moves by it."""
        spent = self.clock() - started
        self.result.human_s += spent
        self.deadline += spent

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
        elif isinstance(action, Fail):  # refused and safety_check are kinds of fail (agents.base)
            self.result.end, self.result.fail_reason = getattr(action, "end_state", "fail"), action.reason
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


def _human_note(takeover: int, done: list[ActionResult]) -> str:
    """What the agent is told after a takeover."""
    if not done:
        return f"A human took control (takeover {takeover}) and gave it back without acting; continue the task."
    listed = "; ".join(r.action.describe() + ("" if r.ok else f" (failed: {r.error})") for r in done)
    if len(listed) > 600:
        listed = listed[:597] + "..."
    return (f"A human took control (takeover {takeover}) and did {len(done)} action(s): {listed}. Continue the "
            f"task from the current screen.")


NO_HUMAN = "No human is available to answer; continue on your own."
_TIMEOUT = object()
