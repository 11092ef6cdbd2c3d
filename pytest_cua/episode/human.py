"""The human in the loop: answers to the agent's ``ask(question)`` and takeovers (the human acts instead of
the agent for a while; ProSoftArena's HIT mode).

Answers are resolved in this order: ``--cua-human FILE`` (scripted, for CI), then an interactive prompt on the
terminal when output capture is off (``-s``) and standard input is a terminal, else none (the agent is told
that no human is available).

Takeovers: ``--cua-human FILE`` scripts them (at the agent's step N the human plays these actions), and
``--cua-takeover`` lets a person take control through VNC (``pytest_cua.envs.docker.takeover``). Either way the
human's actions become trajectory steps marked ``by: human`` (``pytest_cua.episode.loop``).

The file is JSON, or YAML when its name ends in ``.yaml``/``.yml``: an object keyed by task id or glob
(``fnmatch``: ``calc-*``, ``*``); the task's own id wins, then the globs in file order. Each entry is one of::

    {"<question>": "<answer>", "*": "<answer to anything else>"}          answers to ask(question)
    [{"at_step": 0, "actions": [{"type": "click", "target": {"x": 10, "y": 20}}, ...]}, ...]   takeovers
    {"answers": {...}, "takeovers": [...]}                                   both

``at_step`` N: the human acts after the agent's first N steps (0: before the agent's first step). Actions are
typed actions (``pytest_cua.actions``), never a terminal one (done, answer, fail, ask). Errors name the file
and the entry.
"""

from __future__ import annotations

import fnmatch
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Protocol

from pytest_cua.actions import Action, ActionError

if TYPE_CHECKING:
    from pytest_cua.tasks.task import Task

OPTION = "--cua-human"


class HumanHandler(Protocol):
    def answer(self, task: "Task", question: str) -> str | None:
        """The human's answer, or None when there is none."""


class HumanFileError(ValueError):
    pass


@dataclass(frozen=True)
class ScriptedTakeover:
    """At the agent's step ``at_step`` the human plays ``actions``."""

    at_step: int
    actions: tuple[Action, ...]


def load_human_file(path: str | Path) -> Any:
    """The parsed content of ``path`` (JSON, or YAML by its suffix); errors name the option and the path."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise HumanFileError(f"{OPTION} {path}: cannot be read: {exc.strerror or exc}") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml  # type: ignore[import-untyped,unused-ignore]
        except ModuleNotFoundError:
            raise HumanFileError(f"{OPTION} {path}: reading YAML needs PyYAML (pip install pyyaml); or write "
                                 f"the file as JSON") from None
        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise HumanFileError(f"{OPTION} {path}: not valid YAML: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise HumanFileError(f"{OPTION} {path}: not valid JSON: {exc.msg} at line {exc.lineno}") from None


def _takeovers(where: str, items: Any) -> tuple[ScriptedTakeover, ...]:
    if not isinstance(items, list):
        raise HumanFileError(f"{where}: takeovers must be a list of {{\"at_step\": N, \"actions\": [...]}}")
    out: list[ScriptedTakeover] = []
    seen: set[int] = set()
    for i, item in enumerate(items):
        here = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise HumanFileError(f"{here}: must be an object {{\"at_step\": N, \"actions\": [...]}}, got "
                                 f"{type(item).__name__}")
        extra = sorted(set(item) - {"at_step", "actions"})
        if extra:
            raise HumanFileError(f"{here}: unknown field {extra[0]!r} (fields: at_step, actions)")
        step = item.get("at_step")
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise HumanFileError(f"{here}.at_step: must be a whole number >= 0 (the agent's steps before the "
                                 f"takeover), got {step!r}")
        if step in seen:
            raise HumanFileError(f"{here}.at_step: step {step} has two takeovers; put their actions in one")
        seen.add(step)
        raw_actions = item.get("actions")
        if not isinstance(raw_actions, list) or not raw_actions:
            raise HumanFileError(f"{here}.actions: must be a non-empty list of actions, got {raw_actions!r}")
        actions = []
        for j, data in enumerate(raw_actions):
            try:
                action = Action.from_dict(data)
            except ActionError as exc:
                raise HumanFileError(f"{here}.actions[{j}]: {exc}") from None
            if action.terminal or action.kind == "ask":
                raise HumanFileError(f"{here}.actions[{j}]: {action.kind!r} is the agent's to say; a human step "
                                     f"acts on the environment")
            actions.append(action)
        out.append(ScriptedTakeover(step, tuple(actions)))
    return tuple(sorted(out, key=lambda t: t.at_step))


def _answers(where: str, qa: Any) -> dict[str, str]:
    if not isinstance(qa, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in qa.items()):
        raise HumanFileError(f"{where}: answers must map questions to answer strings")
    return dict(qa)


def parse_human_file(data: Any, source: str = "<file>") -> tuple[dict[str, dict[str, str]],
                                                                  dict[str, tuple[ScriptedTakeover, ...]]]:
    """Answers and takeovers by task id or glob, validated; errors name ``source`` and the entry."""
    where = f"{OPTION} {source}"
    if not isinstance(data, dict):
        raise HumanFileError(f"{where}: must be an object keyed by task id (or glob), got {type(data).__name__}")
    answers: dict[str, dict[str, str]] = {}
    takeovers: dict[str, tuple[ScriptedTakeover, ...]] = {}
    for key, entry in data.items():
        here = f"{where}: entry {key!r}"
        if not isinstance(key, str) or not key:
            raise HumanFileError(f"{where}: a key must be a task id or glob, got {key!r}")
        if isinstance(entry, list):
            takeovers[key] = _takeovers(here, entry)
        elif isinstance(entry, dict) and isinstance(entry.get("takeovers"), list) \
                and set(entry) <= {"answers", "takeovers"}:
            takeovers[key] = _takeovers(f"{here}.takeovers", entry["takeovers"])
            if "answers" in entry:
                answers[key] = _answers(f"{here}.answers", entry["answers"])
        elif isinstance(entry, dict):
            answers[key] = _answers(here, entry)
        else:
            raise HumanFileError(f"{here}: must be answers (an object of question: answer) or takeovers (a list "
                                 f"of {{\"at_step\": N, \"actions\": [...]}}), got {type(entry).__name__}")
    return answers, takeovers


def _matching(keys: Any, task_id: str) -> list[str]:
    """The keys that apply to ``task_id``: its own id first, then the globs in file order."""
    own = [task_id] if task_id in keys else []
    return own + [k for k in keys if k != task_id and any(c in k for c in "*?[") and fnmatch.fnmatchcase(task_id, k)]


class ScriptedHuman:
    """Answers and takeovers from a file (``--cua-human``), by task id or glob."""

    def __init__(self, answers: Mapping[str, Mapping[str, str]], source: str = "<answers>",
                 takeovers: Mapping[str, tuple[ScriptedTakeover, ...]] | None = None) -> None:
        self.answers = answers
        self.source = source
        self.takeovers = dict(takeovers or {})

    @classmethod
    def from_file(cls, path: str | Path) -> "ScriptedHuman":
        answers, takeovers = parse_human_file(load_human_file(path), str(path))
        return cls(answers, str(path), takeovers)

    def answer(self, task: "Task", question: str) -> str | None:
        for key in _matching(self.answers, task.id):
            qa = self.answers[key]
            text = qa.get(question.strip())
            if text is None:
                text = qa.get("*")
            if text is not None:
                return text
        return None

    def takeovers_for(self, task_id: str) -> tuple[ScriptedTakeover, ...]:
        """The scripted takeovers of a task (those of the first key that matches it)."""
        keys = _matching(self.takeovers, task_id)
        return self.takeovers[keys[0]] if keys else ()


class TerminalHuman:
    """Prompts on the terminal (only used with ``-s`` and a terminal on standard input)."""

    def __init__(self, config: Any) -> None:
        self.config = config

    def answer(self, task: "Task", question: str) -> str | None:
        capture = self.config.pluginmanager.getplugin("capturemanager")
        if capture is not None:
            capture.suspend_global_capture(in_=True)
        try:
            sys.stdout.write(f"\n[pytest-cua] task {task.id} asks: {question}\nyour answer (empty for none): ")
            sys.stdout.flush()
            line = sys.stdin.readline()
        finally:
            if capture is not None:
                capture.resume_global_capture()
        line = line.strip()
        return line or None


@dataclass(frozen=True)
class LiveTakeover:
    """``--cua-takeover``: where the signal and status files go, this process's worker, whether it runs
    under xdist (then Enter in the terminal is not read)."""

    directory: Path
    worker: str
    xdist: bool


class Human:
    """Everything a human does for the episodes of a run: answers, scripted takeovers, live takeover."""

    def __init__(self, answerer: HumanHandler | None, script: ScriptedHuman | None = None,
                 live: LiveTakeover | None = None) -> None:
        self.answerer = answerer
        self.script = script
        self.live = live

    def answer(self, task: "Task", question: str) -> str | None:
        return self.answerer.answer(task, question) if self.answerer is not None else None

    def takeovers_for(self, task_id: str) -> tuple[ScriptedTakeover, ...]:
        return self.script.takeovers_for(task_id) if self.script is not None else ()


def human_file_option(value: str) -> str:
    """The ``type`` of ``--cua-human``: the file is read and checked when the options are parsed, so a bad
    file is a usage error naming it (argparse reports the message)."""
    import argparse

    try:
        parse_human_file(load_human_file(value), value)
    except HumanFileError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def resolve_human(config: Any) -> Human | None:
    path = config.getoption("cua_human", None)
    script = ScriptedHuman.from_file(path) if path else None
    answerer: HumanHandler | None = script
    if answerer is None:
        interactive = (config.getoption("capture", "fd") == "no" and not hasattr(config, "workerinput")
                       and sys.stdin is not None and sys.stdin.isatty())
        answerer = TerminalHuman(config) if interactive else None
    live = None
    if config.getoption("cua_takeover", False):
        from pytest_cua.episode.settings import SETTINGS_KEY

        settings = config.stash[SETTINGS_KEY]
        live = LiveTakeover(settings.reports_dir / ".cua" / "takeover" / settings.run_id, settings.worker_id,
                            xdist=hasattr(config, "workerinput"))
    if answerer is None and script is None and live is None:
        return None
    return Human(answerer, script, live)
