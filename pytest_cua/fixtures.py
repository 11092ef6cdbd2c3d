"""The fixtures: small, chained, each a point a user can override.

``cua_task`` (the parametrized task) -> ``cua_env`` (this worker's environment, rolled back and verified
after every task) + ``cua_agent`` -> ``cua_episode`` (runs the loop, in setup) -> ``cua_result`` (the
template's evaluation, in setup) -> the test body calls ``cua_result.check()``.

Everything that is not the agent's doing fails in setup or teardown, so pytest reports it as an error;
the test call fails only when the agent fell short.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import pytest

from pytest_cua.agents.base import Agent, AgentContext
from pytest_cua.agents.builtin import demonstration_from_task
from pytest_cua.tasks.collection import FailingCollector
from pytest_cua.envs.base import EnvContext, Environment, EnvironmentError_, ProvisioningError, Snapshot, env_settings, \
    roll_back
from pytest_cua.envs.registry import provider_for
from pytest_cua.episode.loop import Episode, EpisodeError, EpisodeResult
from pytest_cua.episode.settings import SETTINGS_KEY, Settings, trajectory_dir
from pytest_cua.observations import DEFAULT_KINDS
from pytest_cua.tasks.evaluation import OtherScore, deciding, evaluate_card, other_scores
from pytest_cua.tasks.scoring import MilestonesFailed, ScoreCard
from pytest_cua.tasks.suite import Suite
from pytest_cua.episode.trajectory import TrajectoryRecorder
from pytest_cua.results.records import STATE_KEY, TaskState
from pytest_cua.results.reporter import KEPT_KEY, KEPT_MESSAGES_KEY
from pytest_cua.results.runs import interrupted

if TYPE_CHECKING:
    from pytest_cua.tasks.task import Task

__all__ = ["cua_settings", "cua_suite", "cua_task", "cua_trial", "cua_agent", "cua_env", "cua_episode", "cua_result",
           "_cua_env_pool", "_cua_agent_session", "_cua_human", "_cua_state"]


# --- environments ----------------------------------------------------------------------------------------

@dataclass
class Lease:
    env: Environment
    snapshot: Snapshot


class EnvironmentPool:
    """One environment per suite and xdist worker: created by the suite's provider at first use, prepared
    with the suite's data (``Suite.prepare``), snapshotted once, rolled back after every task, provisioned anew
    after a failed rollback, closed at the end of the session. The same for every provider."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.leases: dict[str, Lease] = {}
        self.failures: dict[str, str] = {}  # suite -> the last provisioning error on this worker

    def repeated_failure(self, suite: Suite, error: ProvisioningError) -> str | None:
        """Note a provisioning failure; when it is the second in a row for the suite with the same message
        (a missing program or image, a daemon that does not answer: a cause no next task will lack), return
        why the run should stop."""
        message = str(error)
        repeated = self.failures.get(suite.name) == message
        self.failures[suite.name] = message
        if not repeated:
            return None
        return (f"pytest-cua: provisioning the {suite.name!r} environment failed twice in a row on "
                f"{self.settings.worker_id} with the same cause, so every task would: {message.splitlines()[0]} "
                f"-- `pytest-cua doctor` checks the machine; finished tasks are kept (--cua-resume runs the rest)")

    def context(self, suite: Suite) -> EnvContext:
        """What the suite's provider gets: this worker, the suite, the artifacts folder, the shared settings."""
        s = self.settings
        return EnvContext(worker_id=s.worker_id, run_id=s.run_id, config=self.config, suite=suite,
                          reports_dir=s.reports_dir, artifacts_dir=s.reports_dir / "artifacts" / s.run_id / s.worker_id,
                          settings=env_settings(self.config))

    def acquire(self, suite: Suite) -> Lease:
        lease = self.leases.get(suite.name)
        if lease is None:
            provider = provider_for(suite)
            try:
                env = provider.create(self.context(suite))
            except ProvisioningError:
                raise
            except Exception as exc:
                raise ProvisioningError(f"suite {suite.name!r}: provisioning failed: {type(exc).__name__}: {exc}") from exc
            try:
                suite.prepare(env, self.config)
            except BaseException as exc:
                env.close()
                if isinstance(exc, (ProvisioningError, KeyboardInterrupt, SystemExit)):
                    raise
                raise ProvisioningError(f"suite {suite.name!r}: preparing the {provider.name} environment failed: "
                                        f"{type(exc).__name__}: {exc}") from exc
            try:
                snapshot = env.snapshot()
            except Exception as exc:
                env.close()
                raise ProvisioningError(f"suite {suite.name!r}: first snapshot failed: {exc}") from exc
            lease = self.leases[suite.name] = Lease(env, snapshot)
        return lease

    def release(self, suite: Suite, scope: tuple[str, ...] | None) -> float:
        """Roll back after a task; return the seconds it took. A residue discards the environment."""
        lease = self.leases[suite.name]
        started = time.perf_counter()
        try:
            roll_back(lease.env, lease.snapshot, scope)
        except BaseException:
            self.discard(suite.name)
            raise
        return time.perf_counter() - started

    def discard(self, name: str) -> None:
        lease = self.leases.pop(name, None)
        if lease is not None:
            lease.env.close()

    def close(self, keep: bool = False) -> list[Environment]:
        """Close every environment, or with ``keep`` (``--keep-env``) return them still running."""
        kept: list[Environment] = []
        errors: list[Exception] = []
        for name in sorted(self.leases):
            if keep:
                kept.append(self.leases[name].env)
                continue
            try:
                self.leases[name].env.close()
            except Exception as exc:  # the others are still closed; the first failure is raised after
                errors.append(exc)
        self.leases.clear()
        if errors:
            raise errors[0]
        return kept


# --- the cua_env marker ------------------------------------------------------------------------------

class MarkerError(pytest.UsageError):  # type: ignore[misc]  # UsageError is @final in pytest's stubs only
    """A ``cua_env`` marker with arguments its signature does not accept; the message names the test."""


def _cua_env_marker(*, scope: Sequence[str] | None = None) -> tuple[str, ...] | None:
    """The signature of ``@pytest.mark.cua_env(scope=[...])`` (called with the marker's arguments, as
    pytest-django validates its markers): ``scope`` names the objects the test may change, the rollback
    scope used instead of the template's. Returns the scope, or None to keep the template's."""
    if scope is None:
        return None
    if isinstance(scope, (str, bytes)):
        raise TypeError(f"scope must be a list of object names, not the string {scope!r} (it would be read "
                        f"letter by letter): write scope=[{scope!r}]")
    if not isinstance(scope, (list, tuple)):
        raise TypeError(f"scope must be a list of object names such as ['Lead'], got {type(scope).__name__} "
                        f"{scope!r}")
    if not scope:
        raise TypeError("scope=[] names no object: leave scope out to use the template's objects")
    bad = [name for name in scope if not isinstance(name, str) or not name.strip()]
    if bad:
        raise TypeError(f"scope must hold object names (non-empty strings), got {bad[0]!r} in {list(scope)!r}")
    return tuple(scope)


def marker_scope(node: pytest.Item) -> tuple[str, ...] | None:
    """The rollback scope a test's ``cua_env`` marker gives, validated; None without the marker (or scope).
    Raises ``MarkerError`` naming the test when the marker's arguments do not fit its signature."""
    marker = node.get_closest_marker("cua_env")
    if marker is None:
        return None
    try:
        return _cua_env_marker(*marker.args, **marker.kwargs)
    except TypeError as exc:
        message = str(exc).replace("_cua_env_marker()", "cua_env()")
        raise MarkerError(f"{node.nodeid}: @pytest.mark.cua_env: {message}") from None


class BrokenMarker(FailingCollector):
    """A test whose ``cua_env`` marker is misused: collecting it fails with ``MarkerError``'s message, so the
    run stops before anything runs (as for a broken task file) and the message names the test."""


def check_markers(collector: pytest.Collector, result: Any) -> Any:
    """After a test function's items are made: replace each item whose ``cua_env`` marker does not fit the
    marker's signature with a ``BrokenMarker`` collector of the same name."""
    if not isinstance(result, list):
        return result
    out = []
    for item in result:
        if isinstance(item, pytest.Item) and item.get_closest_marker("cua_env") is not None:
            try:
                marker_scope(item)
            except MarkerError as exc:
                out.append(BrokenMarker.from_parent(collector, name=item.name, error=exc))
                continue
        out.append(item)
    return out


@pytest.fixture(scope="session")
def cua_settings(pytestconfig: pytest.Config) -> Settings:
    """The resolved pytest-cua settings of this run (agent, reports folder, run id, worker id, limits)."""
    return pytestconfig.stash[SETTINGS_KEY]


@pytest.fixture(scope="session")
def _cua_env_pool(pytestconfig: pytest.Config, cua_settings: Settings) -> Iterator[EnvironmentPool]:
    pool = EnvironmentPool(pytestconfig, cua_settings)
    yield pool
    try:
        kept = pool.close(keep=env_settings(pytestconfig).keep_env)
    except Exception:
        if not interrupted(pytestconfig):
            raise
        return  # interrupted: what would not close went down with the session's processes
    if kept:
        # printed by the terminal summary (from workeroutput under xdist), after output capture
        messages = [env.keep_env_message() for env in kept]
        pytestconfig.stash[KEPT_KEY] = kept
        pytestconfig.stash[KEPT_MESSAGES_KEY] = messages
        workeroutput = getattr(pytestconfig, "workeroutput", None)
        if workeroutput is not None:
            workeroutput["cua_kept"] = messages


@pytest.fixture(scope="session")
def _cua_agent_session(cua_settings: Settings, pytestconfig: pytest.Config) -> Iterator[Agent]:
    agent = cua_settings.registry.create(cua_settings.agent)  # the run's --scuba-root is in its options
    if cua_settings.agent.model and not agent.model:
        agent.model = cua_settings.agent.model
    yield agent
    agent.close()


@pytest.fixture(scope="session")
def _cua_human(pytestconfig: pytest.Config) -> Any:
    from pytest_cua.episode.human import HumanFileError, resolve_human

    try:
        return resolve_human(pytestconfig)
    except HumanFileError as exc:
        raise pytest.UsageError(str(exc)) from None


@pytest.fixture
def _cua_state(request: pytest.FixtureRequest, cua_trial: int) -> TaskState:
    state = TaskState(trial=cua_trial)
    request.node.stash[STATE_KEY] = state
    return state


# --- public fixtures -----------------------------------------------------------------------------------

@pytest.fixture
def cua_suite(request: pytest.FixtureRequest) -> Suite:
    """The suite of the test module (its ``CUA_SUITE``)."""
    from pytest_cua.tasks.collection import suite_of

    suite = suite_of(request.module)
    if suite is None:
        raise pytest.UsageError(f"{request.node.nodeid}: the module declares no CUA_SUITE")
    return suite


@pytest.fixture
def cua_trial() -> int:
    """The trial of this test: 1..K under ``--cua-trials K`` (the plugin parametrizes it), else 1."""
    return 1


@pytest.fixture
def cua_task(request: pytest.FixtureRequest, cua_trial: int) -> "Task":
    """The task of this test (one test per task: the plugin parametrizes ``cua_task`` from ``CUA_SUITE``)."""
    raise pytest.UsageError(f"{request.node.nodeid}: cua_task is not parametrized (no CUA_SUITE in the module?)")


@pytest.fixture
def cua_agent(_cua_agent_session: Agent, cua_task: "Task", _cua_state: TaskState) -> Agent:
    """The agent chosen with ``--agent`` (one per worker; ``start`` is called per task by the episode)."""
    _cua_state.task = cua_task
    _cua_state.agent = _cua_agent_session.describe()
    return _cua_agent_session


@pytest.fixture
def cua_env(cua_suite: Suite, cua_task: "Task", _cua_env_pool: EnvironmentPool,
            _cua_state: TaskState, request: pytest.FixtureRequest) -> Iterator[Environment]:
    """This worker's environment for the suite, ready for the task. After the task it is restored to its
    snapshot and checked: anything left over is an error outcome (``error_kind`` rollback) naming it."""
    _cua_state.task = cua_task
    template = cua_suite.template_for(cua_task)  # a task naming no template of its suite is a collection error
    scope = marker_scope(request.node)
    if scope is None:
        scope = cua_suite.rollback_scope(cua_task)
    try:
        lease = _cua_env_pool.acquire(cua_suite)
    except ProvisioningError as exc:
        stop = _cua_env_pool.repeated_failure(cua_suite, exc)
        if stop is not None:
            request.session.shouldstop = stop  # this task is the last one run: an error; the run then stops
        raise
    _cua_env_pool.failures.pop(cua_suite.name, None)
    _cua_state.environment = {**lease.env.describe(), "rollback_scope": list(scope) if scope else None}
    try:
        started = time.perf_counter()
        lease.env.begin_task(cua_task)  # a desktop task's program starts here: its start-up is the task's time
        if template is not None and template.has("arrange"):
            try:
                template.arrange(cua_task, lease.env)
            except Exception as exc:  # the task's starting state could not be made: not the agent's doing
                raise EnvironmentError_(f"template {template.name!r} could not arrange task {cua_task.id!r}: "
                                        f"{type(exc).__name__}: {exc}") from exc
        _cua_state.start_s = time.perf_counter() - started
        yield lease.env
    finally:
        try:
            _cua_state.reset_s = _cua_env_pool.release(cua_suite, scope)
        except Exception as exc:
            setup = _cua_state.reports.get("setup")
            if (setup is None or not setup[0].failed) and not interrupted(request.config):
                raise
            # the environment already failed this task's setup, or the session was interrupted (Ctrl-C took
            # the browser down with pytest): the environment was discarded, nothing is left; no second error
            _cua_state.environment = {**(_cua_state.environment or {}),
                                      "rollback_error": f"{type(exc).__name__}: {exc}"[:2000]}
        finally:
            usage = lease.env.task_usage() if _cua_env_pool.leases.get(cua_suite.name) is lease else {}
            if usage:
                _cua_state.environment = {**(_cua_state.environment or {}), **usage}


@pytest.fixture
def cua_episode(cua_task: "Task", cua_suite: Suite, cua_env: Environment, cua_agent: Agent,
                cua_settings: Settings, _cua_human: Any, _cua_state: TaskState,
                pytestconfig: pytest.Config) -> EpisodeResult:
    """Runs the agent on the task (observe -> act until done, answer, fail or a limit) and returns the
    episode's result. Runs in setup: a broken agent or environment is an error, not a failure."""
    template = cua_suite.template_for(cua_task)
    env = cua_env
    ledger = _cost_ledger(cua_settings)
    if ledger is not None and ledger.exhausted():
        pytest.skip(f"the run's cost cap is reached: ${ledger.total():.4f} of --cua-max-cost ${ledger.cap_usd:g} "
                    "spent; task not started")
    kinds = _observation_kinds(pytestconfig, cua_suite, cua_agent)
    _cua_state.observation = "+".join(sorted(kinds))  # the setting every record names (ProSoftArena's ablations)
    context = AgentContext(
        env=env, observation_kinds=kinds, demos=cua_settings.demos,
        solve=(lambda: template.solve(cua_task, env)) if template is not None and template.has("solve") else None,
        demonstration=_demonstration(pytestconfig, cua_task, template, env, _cua_state.trial),
        options={"worker_id": cua_settings.worker_id, "run_id": cua_settings.run_id, "environment": env.name,
                 **({"trial": _cua_state.trial} if cua_settings.trials > 1 else {})},
    )
    directory = trajectory_dir(cua_settings, cua_task.id, _cua_state.trial)
    recorder = TrajectoryRecorder(directory)
    episode = Episode(cua_task, env, cua_agent, context=context, recorder=recorder, human=_cua_human,
                      max_steps=cua_settings.max_steps, time_limit_s=cua_settings.time_limit_s,
                      max_cost_usd=cua_settings.max_cost_task, ledger=ledger)
    try:
        result = episode.run()
    except EpisodeError as exc:
        _cua_state.episode = exc.result
        _finish_trajectory(recorder, cua_task, exc.result, _cua_state, error=str(exc))
        raise
    _cua_state.episode = result
    _finish_trajectory(recorder, cua_task, result, _cua_state)
    return result


def _finish_trajectory(recorder: TrajectoryRecorder, task: "Task", result: EpisodeResult,
                       state: TaskState, error: str | None = None) -> None:
    summary = {"task": task.summary_fields(), "instruction": task.instruction, "episode": result.to_dict(),
               "agent": state.agent, "environment": state.environment, "error": error}
    path = recorder.finish(summary)
    state.trajectory = str(path) if path is not None else None


def _observation_kinds(config: pytest.Config, suite: Suite, agent: Agent | None = None) -> frozenset[str]:
    """``--cua-observe``, else what the agent asks for (a model style), else the suite's default for agents that
    ask for nothing, else all the suite offers, else the default; an agent's wish is narrowed to what the suite's
    environment offers when the suite declares its kinds."""
    chosen = env_settings(config).observe
    if chosen:
        return chosen
    wanted = getattr(agent, "observation_kinds", None)
    if wanted:
        offered = suite.observation_kinds
        if offered and not set(wanted) <= set(offered):
            return frozenset(set(wanted) & set(offered)) or frozenset(offered)
        return frozenset(wanted)
    return getattr(suite, "default_observation_kinds", None) or suite.observation_kinds or DEFAULT_KINDS


_LEDGERS: dict[str, Any] = {}


def _cost_ledger(settings: Settings) -> Any:
    """The run's cost ledger when ``--cua-max-cost`` is given (one per process, shared through its file)."""
    if settings.max_cost is None:
        return None
    path = settings.ledger_path
    ledger = _LEDGERS.get(str(path))
    if ledger is None:
        from pytest_cua.agents.models.ledger import CostLedger

        ledger = _LEDGERS[str(path)] = CostLedger(path, settings.max_cost)
    return ledger


def _demonstration(config: pytest.Config, task: "Task", template: Any, env: Environment,
                   trial: int = 1) -> Callable[[], Any] | None:
    replay_dir = getattr(config.option, "cua_replay_from", None)
    if replay_dir:
        from pytest_cua.tasks.collection import trial_id
        from pytest_cua.episode.trajectory import actions_from_trajectory

        # a run with trials wrote <task id>-trial<n>/: the same trial's first, else the task's, else trial 1's
        folders = [trial_id(task.id, trial), task.id, trial_id(task.id, 1)]
        found = [Path(replay_dir) / f / "trajectory.json" for f in folders]
        path = next((p for p in found if p.exists()), found[1])
        return lambda: actions_from_trajectory(path)
    if template is not None and template.has("demonstrate"):
        return lambda: template.demonstrate(task, env)
    if task.demonstration_actions is not None:
        return lambda: demonstration_from_task(task)
    return None


class TaskResult:
    """The evaluated task: score card, episode, and ``check()`` that fails the test when the agent fell
    short, with the milestone table as the message."""

    def __init__(self, task: "Task", card: ScoreCard, episode: EpisodeResult, env: Environment,
                 others: dict[str, OtherScore] | None = None, decided_by: str | None = None) -> None:
        self.task = task
        self.card = card  # the suite's own scoring
        self.others = dict(others or {})  # the suite's other scorings (Suite.scorings), by name
        self.decided_by = decided_by  # the other scoring that decides (--cua-scoring); None: the suite's own
        self.episode = episode
        self.env = env  # still alive in the test body (and under --pdb)

    @property
    def deciding(self) -> "ScoreCard | OtherScore":
        """The verdict that decides the test: the suite's own card, or the other scoring's (``--cua-scoring``)."""
        return self.others[self.decided_by] if self.decided_by else self.card

    @property
    def score(self) -> float:
        return self.deciding.score

    @property
    def success(self) -> bool:
        return self.deciding.success

    def check(self) -> None:
        _emit_report(self)
        if not self.success:
            end = f"episode ended: {self.episode.end}"
            if self.episode.fail_reason:
                end += f" ({self.episode.fail_reason})"
            table = self.deciding.table()
            by = f" by scoring {self.decided_by!r}" if self.decided_by else ""
            raise MilestonesFailed(f"task {self.task.id} scored {self.score:.2f}{by}; {end}\n{table}")


def _emit_report(result: TaskResult) -> None:
    try:
        from pytest_cua.results.allure import emit_task
    except ModuleNotFoundError:
        return
    emit_task(result)


@pytest.fixture
def cua_result(cua_task: "Task", cua_suite: Suite, cua_env: Environment, cua_episode: EpisodeResult,
               cua_settings: Settings, _cua_state: TaskState) -> TaskResult:
    """The task evaluated by its template's milestones after the episode (in setup: an evaluator crash is
    an error outcome naming the template), under the suite's own scoring and each of its other ones
    (``Suite.scorings``); ``--cua-scoring`` chooses the one that decides. Call ``cua_result.check()`` in the
    test body."""
    template = cua_suite.template_for(cua_task)
    artifacts = cua_env.end_task(cua_task, failed=False)
    started = time.perf_counter()
    card = evaluate_card(template, cua_task, cua_env, cua_episode.answer, artifacts)
    _cua_state.card = card
    others = other_scores(cua_suite, template, cua_task, cua_env, cua_episode.answer, artifacts)
    _cua_state.others = others
    _cua_state.decided_by = deciding(cua_suite, cua_settings.scoring)  # checked at collection
    _cua_state.eval_s = time.perf_counter() - started
    return TaskResult(cua_task, card, cua_episode, cua_env, others, _cua_state.decided_by)

