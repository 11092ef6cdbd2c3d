"""Suites and templates: how a benchmark tells the plugin where its tasks are and how to score them.

A suite's test module declares ``CUA_SUITE = Suite(...)`` and one test function that requests ``cua_task``;
the plugin parametrizes it with one test per task (ids = task ids, sorted the same way on every worker).

A template is the code behind a family of tasks: its evaluator (milestones), its oracle solver and its
demonstration, plus the objects its tasks touch (the rollback scope).
"""

from __future__ import annotations

import difflib

import glob
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

from pytest_cua.tasks.task import Task, TaskFileError, check_unique, load_task_file, shown_path, unknown_key_message

if TYPE_CHECKING:
    from pytest_cua.actions import Action
    from pytest_cua.envs.base import EnvContext, Environment
    from pytest_cua.tasks.scoring import ScoreCard


@dataclass
class EvalContext:
    """What an evaluator reads: the task, the environment (after the episode), the agent's answer and the
    artifacts the environment copied out. Milestones go to ``card`` (``pytest_cua.milestone`` finds it)."""

    task: Task
    env: "Environment"
    card: "ScoreCard"
    answer: str | None = None
    artifacts: dict[str, Any] = field(default_factory=dict)

    @property
    def truth(self) -> Mapping[str, Any]:
        return self.task.ground_truth

    @property
    def scoring(self) -> str | None:
        """The other scoring of the suite this evaluation is under (``Suite.scorings``); None: the suite's own."""
        return self.card.scoring


@dataclass(frozen=True)
class Scoring:
    """Another way a suite scores its tasks, beside its own (``Suite.scorings``): SCUBA's evaluator's rules as
    they are, say, beside the corrected ones. Every task is evaluated under each; the record carries
    ``score_<name>`` (and ``<name>_crash`` where that evaluator would crash), and ``--cua-scoring NAME`` makes
    it the one that decides passed / failed, the summary and the gate.

    ``digits``: the score is rounded so (SCUBA rounds to 2) and the task is complete at a rounded 1;
    ``crash_score``: its score where its evaluator would crash (``ScoringCrash``; SCUBA's -1, a "system
    failure"), counted as 0 in means."""

    description: str
    digits: int | None = None
    crash_score: float = 0.0


class Template:
    """Base class of a task template. Subclasses set ``name`` and implement what they support."""

    name: str = ""
    objects: tuple[str, ...] = ()  # what its tasks may change: the rollback scope
    milestones: Mapping[str, float] | None = None  # declared weights, checked once at load
    ground_truth_keys: tuple[str, ...] | None = None  # the keys its tasks' ground truth may hold (None: any)
    #: with ``ground_truth_keys``: those a task may leave out; every other declared key is required (a task
    #: without it is a collection error). None: every key is optional (nothing is required).
    ground_truth_optional: tuple[str, ...] | None = None

    def evaluate(self, ctx: EvalContext) -> None:
        raise NotImplementedError(f"template {self.name!r} has no evaluator")

    def solve(self, task: Task, env: "Environment") -> None:
        raise NotImplementedError(f"template {self.name!r} has no oracle solver")

    def demonstrate(self, task: Task, env: "Environment") -> Sequence["Action"]:
        raise NotImplementedError(f"template {self.name!r} has no demonstration")

    def arrange(self, task: Task, env: "Environment") -> None:
        """What the task takes for granted that the environment's snapshot lacks, made after the snapshot and
        before the agent starts; rolled back (and checked) with the task's own changes. A failure here is an
        environment error of the task."""

    def has(self, method: str) -> bool:
        return getattr(type(self), method) is not getattr(Template, method)


@dataclass
class TaskSource:
    """One unit of task data (usually a file): a collection error is reported per source."""

    label: str  # shown in the collection error and used as the node name
    load: Callable[[], list[Task]]


@dataclass
class LoadedTasks:
    tasks: list[Task]
    errors: list[tuple[str, TaskFileError]]  # (source label, error)


class Suite:
    """A benchmark suite. ``task_fields`` are the suite's own task fields besides the standard ones (kept in
    ``Task.extra``; any other field of a task file is a collection error). ``environment`` is a provider name (entry point of ``pytest_cua.environments``)
    or a factory ``(EnvContext) -> Environment``; ``environment_options`` are that provider's settings for
    this suite (the docker provider's image, memory and cpus, say); command-line options override them.

    ``observation_kinds`` are the observations the suite's environment offers (a model agent's wish is narrowed
    to them); ``default_observation_kinds`` what an agent that asks for nothing gets (replay, noop; default: all
    offered), e.g. the screenshot alone where the accessibility tree costs seconds a step."""

    task_fields: tuple[str, ...] = ()  # a subclass may declare its fields here instead of in the call

    def __init__(self, name: str, *, environment: "str | Callable[[EnvContext], Environment]",
                 tasks: Sequence[str] = ("tasks/*.json",), templates: Mapping[str, Template] | None = None,
                 base_dir: str | Path | None = None, observation_kinds: Iterable[str] | None = None,
                 environment_options: Mapping[str, Any] | None = None,
                 default_observation_kinds: Iterable[str] | None = None,
                 task_fields: Iterable[str] | None = None, scorings: Mapping[str, Scoring] | None = None,
                 own_scoring: str = "own") -> None:
        self.name = name
        # other ways of scoring its tasks (``Scoring``), by name; ``own_scoring`` names the suite's own
        self.scorings: dict[str, Scoring] = dict(scorings or {})
        self.own_scoring = own_scoring
        if own_scoring in self.scorings:
            raise ValueError(f"suite {name!r}: own_scoring {own_scoring!r} is also one of scorings")
        if task_fields is not None:
            self.task_fields = tuple(task_fields)
        self.environment = environment
        self.task_globs = tuple(tasks)
        self.templates: dict[str, Template] = dict(templates or {})
        self.base_dir = Path(base_dir) if base_dir is not None else None
        self.observation_kinds = frozenset(observation_kinds) if observation_kinds else None
        self.default_observation_kinds = frozenset(default_observation_kinds) if default_observation_kinds else None
        if self.default_observation_kinds and self.observation_kinds and \
                not self.default_observation_kinds <= self.observation_kinds:
            raise ValueError(f"suite {name!r}: default_observation_kinds {sorted(self.default_observation_kinds)} "
                             f"are not all offered by observation_kinds {sorted(self.observation_kinds)}")
        self.environment_options: dict[str, Any] = dict(environment_options or {})  # read by the provider

    def bind(self, module_file: str | Path) -> None:
        if self.base_dir is None:
            self.base_dir = Path(module_file).resolve().parent

    def task_sources(self, config: Any) -> list[TaskSource]:
        """The task files of the suite, sorted. Override to add sources (a release checkout, say)."""
        assert self.base_dir is not None, "Suite.bind() was not called"
        paths: set[Path] = set()
        for pattern in self.task_globs:
            paths.update(Path(p) for p in glob.glob(str(self.base_dir / pattern), recursive=True))
        root = self.base_dir
        return [TaskSource(str(p.relative_to(root)), _file_loader(p, self.name, root, self.task_fields))
                for p in sorted(paths)]

    def load(self, config: Any) -> LoadedTasks:
        """Load every source; a broken source is an error of its own, the others still load. A broken template
        is one error naming its module and class; its tasks are not collected (the error lists them)."""
        tasks: list[Task] = []
        errors: list[tuple[str, TaskFileError]] = []
        for source in self.task_sources(config):
            try:
                loaded = source.load()
                for task in loaded:
                    self.check_task(task)
            except TaskFileError as exc:
                errors.append((source.label, exc))
                continue
            tasks.extend(loaded)
        try:
            check_unique(tasks)
        except TaskFileError as exc:
            errors.append((exc.path, exc))
            dup = exc.task_id
            tasks = [t for t in tasks if t.id != dup]
        for key, error in self.template_errors(getattr(config, "rootpath", None)).items():
            users = sorted(t.id for t in tasks if t.template == key)
            if users:
                shown = ", ".join(users[:5]) + (f" and {len(users) - 5} more" if len(users) > 5 else "")
                error = TaskFileError(error.path, f"{error.message}; its {len(users)} task(s) are not collected: "
                                      f"{shown}", field_name=error.field_name)
                tasks = [t for t in tasks if t.template != key]
            errors.append((error.path, error))
        tasks.sort(key=lambda t: t.id)
        return LoadedTasks(tasks, errors)

    def template_errors(self, root: Path | None = None) -> dict[str, TaskFileError]:
        """The templates whose own declarations are wrong (milestone weights), by key: each error names the
        template's module (relative to ``root``, the run's root folder) and class, not a task file that happens
        to use it."""
        errors: dict[str, TaskFileError] = {}
        for key, template in sorted(self.templates.items()):
            if template.milestones is None:
                continue
            from pytest_cua.tasks.scoring import check_weights

            problem = check_weights(template.milestones)
            if problem:
                cls = type(template)
                errors[key] = TaskFileError(_module_path(cls, root or self.base_dir),
                                            f"template {key!r} (class {cls.__qualname__}): {problem}",
                                            field_name="milestones")
        return errors

    def check_task(self, task: Task) -> None:
        """Suite-level checks of one task: its template is one of the suite's (a question task may name a template
        the suite does not have: it is scored on its answer), and its ground truth holds only the keys that
        template declares, every required one among them."""
        if not self.templates or task.template is None:
            return
        path = task.source.split("#")[0]
        template = self.templates.get(task.template)
        if template is None:
            if task.is_question:
                return
            raise TaskFileError(path, _unknown_template(task.template, self), task_id=task.id,
                                field_name="template")
        keys = template.ground_truth_keys
        if keys is None:
            return
        for key in task.ground_truth:
            if key not in keys:
                raise TaskFileError(path, unknown_key_message(str(key), keys, f"ground_truth key of template "
                                                                              f"{task.template!r}:"),
                                    task_id=task.id, field_name=f"ground_truth.{key}")
        if template.ground_truth_optional is None:
            return
        missing = [k for k in keys if k not in template.ground_truth_optional and k not in task.ground_truth]
        if missing:
            raise TaskFileError(path, f"template {task.template!r} needs ground_truth key(s) "
                                      f"{', '.join(map(repr, missing))} (its keys: {', '.join(keys)})",
                                task_id=task.id, field_name="ground_truth")

    def markers(self, task: Task) -> Sequence[str]:
        """The task's markers besides the standard ones (persona, difficulty, level, ``template_<name>``,
        ``app_<name>``), e.g. ProSoft's ``domain_<name>`` from its programs: made into markers and registered
        like those (characters other than letters, digits and '_' become '_'), carried in the task's record
        (``markers``). A task the suite cannot mark should fail ``check_task`` (a collection error naming its
        file), never go unmarked. Default: none."""
        return ()

    def known_markers(self) -> Sequence[str]:
        """Markers the suite registers whether or not a collected task carries them (ProSoft: every
        ``domain_<name>`` and ``app_<name>`` it knows), so that ``-m`` naming one under ``--strict-markers``
        selects nothing rather than failing as an unknown marker (pytest 9.2 and later). Default: none."""
        return ()

    def prepare(self, env: "Environment", config: Any) -> None:
        """Called once per provisioned environment, before its snapshot: install suite data here."""

    def template_for(self, task: Task) -> Template | None:
        return self.templates.get(task.template) if task.template else None

    def rollback_scope(self, task: Task) -> tuple[str, ...] | None:
        template = self.template_for(task)
        return tuple(template.objects) if template is not None and template.objects else None


def _unknown_template(name: str, suite: Suite) -> str:
    """``unknown template of suite 'scuba': 'create_leed' (did you mean 'create_lead'?; ...)``: the names the
    suite knows, all of them when they are few, else how many."""
    names = sorted(suite.templates)
    if len(names) <= 12:
        return unknown_key_message(name, names, f"template of suite {suite.name!r}:")
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
    hint = f"did you mean {close[0]!r}?; " if close else ""
    return (f"unknown template of suite {suite.name!r}: {name!r} ({hint}the suite has {len(names)} templates: "
            f"{', '.join(names[:6])}, ...)")


def _module_path(cls: type, root: Path | None) -> str:
    """The file that defines ``cls``, relative to ``root`` when it lies inside."""
    try:
        path = Path(inspect.getsourcefile(cls) or cls.__module__)
    except TypeError:  # a class without a source file (built in a REPL, say)
        return cls.__module__
    return shown_path(path, root)


def _file_loader(path: Path, suite: str, root: Path, fields: tuple[str, ...]) -> Callable[[], list[Task]]:
    return lambda: load_task_file(path, suite=suite, root=root, extension_fields=fields)
