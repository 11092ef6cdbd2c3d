"""The built-in agents: ``noop`` (says done), ``replay`` (plays the demonstration) and ``oracle`` (calls the
template's solver, which sets the expected end state through the environment's API)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Sequence

from pytest_cua.actions import TARGET_FIELDS, Action, Answer, Done, Fail, actions_from_dicts
from pytest_cua.agents.locators import LocatorError, is_locator, resolve_locator
from pytest_cua.agents.base import Agent, AgentContext, AgentError, Turn

if TYPE_CHECKING:
    from pytest_cua.observations import Observation
    from pytest_cua.tasks.task import Task


class NoopAgent(Agent):
    """Does nothing and says done: the floor every task must stay above (a task noop passes is broken)."""

    name = "noop"

    def start(self, task: "Task", context: AgentContext) -> None:
        pass

    def step(self, observation: "Observation") -> Turn:
        return Turn([Done()], reasoning="noop: does nothing")


class ReplayAgent(Agent):
    """Plays the task's demonstration actions, one per step, then says done (or answers)."""

    name = "replay"

    def __init__(self) -> None:
        super().__init__()
        self._queue: list[Action] = []

    def start(self, task: "Task", context: AgentContext) -> None:
        if context.demonstration is None:
            raise AgentError(f"task {task.id!r} has no demonstration to replay")
        actions = list(context.demonstration())
        if not actions or not actions[-1].terminal:
            actions.append(_final_action(task))
        self._queue = actions

    def step(self, observation: "Observation") -> Turn:
        if not self._queue:
            return Turn([Done()], reasoning="replay: demonstration finished")
        if observation.last_error:
            # a demonstration is a script: once a step fails the rest cannot be trusted
            action = self._queue[-1] if self._queue[-1].terminal else Done()
            self._queue = []
            return Turn([action], reasoning=f"replay: stopping after a failed step ({observation.last_error})")
        action = self._queue.pop(0)
        try:
            resolved = resolve_targets(action, observation)
        except LocatorError as exc:
            self._queue = []
            return Turn([Fail(f"replay: {exc}")], reasoning=f"replay: cannot find the target of {action.describe()}")
        return Turn([resolved], reasoning=f"replay: {action.describe()}")


class OracleAgent(Agent):
    """Reaches the expected end state through the environment's API (the template's solver)."""

    name = "oracle"

    def __init__(self) -> None:
        super().__init__()
        self._task: "Task | None" = None
        self._context: AgentContext | None = None

    def start(self, task: "Task", context: AgentContext) -> None:
        if context.solve is None and not task.is_question:
            raise AgentError(f"task {task.id!r}: its template has no oracle solver")
        self._task, self._context = task, context

    def step(self, observation: "Observation") -> Turn:
        assert self._task is not None and self._context is not None
        if self._context.solve is not None:
            self._context.solve()  # a question without a solver is answered from its ground truth
        return Turn([_final_action(self._task)], reasoning="oracle: solved through the API")


def resolve_targets(action: Action, observation: "Observation") -> Action:
    """Replace semantic targets (``role=button[name="Save"]``) with this observation's element ids."""
    changes = {}
    for name in TARGET_FIELDS:
        value = getattr(action, name, None)
        if is_locator(value):
            if not observation.elements:
                raise LocatorError(f"{value!r} needs element ids: observe with axtree or dom (--cua-observe)")
            changes[name] = resolve_locator(value, observation.elements)
    return dataclasses.replace(action, **changes) if changes else action


def _final_action(task: "Task") -> Action:
    answer = task.ground_truth.get("answer") if task.is_question else None
    return Answer(str(answer)) if answer is not None else Done()


def demonstration_from_task(task: "Task") -> Sequence[Action]:
    """The task's own demonstration actions (from its data file)."""
    if task.demonstration_actions is None:
        raise AgentError(f"task {task.id!r} has no demonstration actions")
    return actions_from_dicts(list(task.demonstration_actions), where=f"task {task.id} demonstration.actions")
