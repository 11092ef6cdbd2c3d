"""The Task model, and loading and validating suite data.

A task file is JSON: one task object, a list of them, or ``{"tasks": [...]}``. Every problem is a
``TaskFileError`` naming the file, the task and the field; the loader never drops a task silently.

Task fields (``id`` and ``instruction`` required)::

    id             unique within the suite; letters, digits, '_', '-', '.'
    instruction    what the agent is told
    persona        e.g. admin / sales / service
    difficulty     easy / medium / hard
    level          L1 / L2 / L3 / L4
    template       the template (evaluator) key
    tags           list of strings
    ground_truth   object: the evaluator's arguments
    demonstration  {"text": "...", "actions": [action, ...]}
    limits         {"max_steps": 50, "time_limit_s": 5400}
    knowledge      the task's knowledge card: a string, or a list of strings (formulas, conventions, menu
                   paths); model agents get it in their prompt under ``--demos`` only

A suite declares its own further fields (``Suite(task_fields=...)``: a desktop suite's ``apps`` and
``start_files``, say); they are kept in ``extra``. Any other field is an error naming the known ones, so a
misspelt ``instructon`` is a collection error, not a task that quietly lacks its instruction.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Iterable, Mapping, Sequence

from pytest_cua.actions import ActionError, actions_from_dicts

DIFFICULTIES = ("easy", "medium", "hard")
LEVELS = ("L1", "L2", "L3", "L4")
DEFAULT_MAX_STEPS = 50
DEFAULT_TIME_LIMIT_S = 90 * 60.0
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
TASK_FIELDS = ("id", "instruction", "persona", "difficulty", "level", "template", "tags", "ground_truth",
               "demonstration", "limits", "knowledge")
_KNOWN = frozenset(TASK_FIELDS)


class TaskFileError(Exception):
    """A task file that cannot be loaded. ``str()`` names the file, the task and the field."""

    def __init__(self, path: str | Path, message: str, *, task_id: str | None = None,
                 field_name: str | None = None) -> None:
        self.path = str(path)
        self.task_id = task_id
        self.field_name = field_name
        where = self.path
        if task_id is not None:
            where += f": task {task_id!r}"
        if field_name is not None:
            where += f": field {field_name!r}"
        self.message = message
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Limits:
    max_steps: int = DEFAULT_MAX_STEPS
    time_limit_s: float = DEFAULT_TIME_LIMIT_S


@dataclass(frozen=True)
class Task:
    id: str
    suite: str
    instruction: str
    persona: str | None = None
    difficulty: str | None = None
    level: str | None = None
    template: str | None = None
    tags: tuple[str, ...] = ()
    ground_truth: Mapping[str, Any] = field(default_factory=dict)
    demonstration_text: str | None = None
    demonstration_actions: tuple[Mapping[str, Any], ...] | None = None
    limits: Limits = field(default_factory=Limits)
    source: str = ""  # "path#index", where the task was defined
    extra: Mapping[str, Any] = field(default_factory=dict)
    knowledge: tuple[str, ...] = ()  # the knowledge card's entries (given to agents under --demos)

    @property
    def is_question(self) -> bool:
        """A question task is scored on the agent's answer."""
        return "answer" in self.ground_truth and (self.template or "").startswith("qa")

    def summary_fields(self) -> dict[str, Any]:
        fields = {"id": self.id, "suite": self.suite, "persona": self.persona, "difficulty": self.difficulty,
                  "level": self.level, "template": self.template, "tags": list(self.tags)}
        if self.knowledge:
            fields["knowledge"] = list(self.knowledge)
        return fields

    def knowledge_text(self) -> str:
        """The knowledge card as text, one entry per line ("" when the task has none)."""
        return "\n".join(f"- {entry}" if len(self.knowledge) > 1 else entry for entry in self.knowledge)

    def description(self) -> str:
        """The instruction, then the knowledge card when the task has one (reports show this)."""
        if not self.knowledge:
            return self.instruction
        return f"{self.instruction}\n\nKnowledge card:\n{self.knowledge_text()}"


def unknown_key_message(key: str, known: Iterable[str], what: str = "field") -> str:
    """``unknown field 'instructon' (did you mean 'instruction'?; known: ...)``: the message for a key
    that is not among ``known``."""
    names = sorted(set(known))
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.75)
    hint = f"did you mean {close[0]!r}?; " if close else ""
    return f"unknown {what} {key!r} ({hint}known: {', '.join(names)})"


def task_from_mapping(data: Any, *, suite: str, source: str, path: str | Path,
                      index: int | None = None, extension_fields: Collection[str] = ()) -> Task:
    """Validate one task object and build a Task; errors name the file, the task and the field.
    ``extension_fields`` are the suite's own fields (kept in ``extra``); any other unknown field is an error."""
    label = f"#{index}" if index is not None else None
    if not isinstance(data, Mapping):
        raise TaskFileError(path, f"a task must be an object, got {type(data).__name__}", task_id=label)
    raw_id = data.get("id")
    if not isinstance(raw_id, str) or not _ID.match(raw_id):
        raise TaskFileError(path, f"must be a non-empty string of letters, digits, '_', '-', '.', got {raw_id!r}",
                            task_id=label, field_name="id")
    tid = raw_id

    def fail(field_name: str, message: str) -> TaskFileError:
        return TaskFileError(path, message, task_id=tid, field_name=field_name)

    known = _KNOWN | frozenset(extension_fields)
    for key in data:
        if key not in known:
            raise fail(str(key), unknown_key_message(str(key), known))

    def opt_str(name: str, choices: Sequence[str] | None = None) -> str | None:
        value = data.get(name)
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise fail(name, f"must be a non-empty string, got {value!r}")
        if choices is not None and value not in choices:
            raise fail(name, f"must be one of {', '.join(choices)}, got {value!r}")
        return value

    instruction = data.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        raise fail("instruction", f"must be a non-empty string, got {instruction!r}")
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise fail("tags", f"must be a list of strings, got {tags!r}")
    ground_truth = data.get("ground_truth", {})
    if not isinstance(ground_truth, Mapping):
        raise fail("ground_truth", f"must be an object, got {type(ground_truth).__name__}")
    demo = data.get("demonstration") or {}
    if not isinstance(demo, Mapping):
        raise fail("demonstration", "must be an object with 'text' and/or 'actions'")
    for key in demo:
        if key not in ("text", "actions"):
            raise fail(f"demonstration.{key}", unknown_key_message(str(key), ("text", "actions")))
    demo_text = demo.get("text")
    if demo_text is not None and not isinstance(demo_text, str):
        raise fail("demonstration.text", "must be a string")
    demo_actions = demo.get("actions")
    if demo_actions is not None:
        try:
            actions_from_dicts(demo_actions, where="actions")
        except ActionError as exc:
            raise fail("demonstration.actions", str(exc)) from None
        demo_actions = tuple(demo_actions)
    limits = _limits(data.get("limits", {}), fail)
    knowledge = _knowledge(data.get("knowledge"), fail)
    return Task(
        id=tid, suite=suite, instruction=instruction, persona=opt_str("persona"),
        difficulty=opt_str("difficulty", DIFFICULTIES), level=opt_str("level", LEVELS),
        template=opt_str("template"), tags=tuple(tags), ground_truth=dict(ground_truth),
        demonstration_text=demo_text, demonstration_actions=demo_actions, limits=limits, source=source,
        extra={k: v for k, v in data.items() if k not in _KNOWN}, knowledge=knowledge,
    )


def _knowledge(raw: Any, fail: Any) -> tuple[str, ...]:
    """The knowledge card: absent, a non-empty string, or a non-empty list of non-empty strings."""
    if raw is None:
        return ()
    if isinstance(raw, str):
        if not raw.strip():
            raise fail("knowledge", "must be a non-empty string or a list of non-empty strings, got ''")
        return (raw.strip(),)
    if not isinstance(raw, list) or not raw:
        raise fail("knowledge", f"must be a non-empty string or a list of non-empty strings, got "
                                f"{type(raw).__name__} {raw!r}"[:300])
    for i, entry in enumerate(raw):
        if not isinstance(entry, str) or not entry.strip():
            raise fail(f"knowledge[{i}]", f"must be a non-empty string, got {entry!r}"[:300])
    return tuple(entry.strip() for entry in raw)


def _limits(raw: Any, fail: Any) -> Limits:
    if not isinstance(raw, Mapping):
        raise fail("limits", "must be an object with max_steps and/or time_limit_s")
    unknown = sorted(set(raw) - {"max_steps", "time_limit_s"})
    if unknown:
        raise fail(f"limits.{unknown[0]}", unknown_key_message(unknown[0], ("max_steps", "time_limit_s"), "limit"))
    max_steps = raw.get("max_steps", DEFAULT_MAX_STEPS)
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
        raise fail("limits.max_steps", f"must be a whole number >= 1, got {max_steps!r}")
    time_limit = raw.get("time_limit_s", DEFAULT_TIME_LIMIT_S)
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or time_limit <= 0:
        raise fail("limits.time_limit_s", f"must be a positive number of seconds, got {time_limit!r}")
    return Limits(max_steps=max_steps, time_limit_s=float(time_limit))


def load_task_file(path: str | Path, *, suite: str, root: str | Path | None = None,
                   extension_fields: Collection[str] = ()) -> list[Task]:
    """Load every task of one JSON file; raise TaskFileError on the first problem. ``extension_fields``: the
    suite's own task fields (see the module docstring)."""
    path = Path(path)
    shown = shown_path(path, root)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaskFileError(shown, f"cannot be read: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TaskFileError(shown, f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if isinstance(data, Mapping) and "tasks" in data:
        data = data["tasks"]
        if not isinstance(data, list):
            raise TaskFileError(shown, "'tasks' must be a list", field_name="tasks")
    items = data if isinstance(data, list) else [data]
    return [task_from_mapping(item, suite=suite, source=f"{shown}#{i}", path=shown, index=i,
                              extension_fields=extension_fields)
            for i, item in enumerate(items)]


def check_unique(tasks: Iterable[Task]) -> None:
    """Raise TaskFileError when two tasks share an id, naming both places."""
    seen: dict[str, Task] = {}
    for task in tasks:
        first = seen.get(task.id)
        if first is not None:
            raise TaskFileError(task.source.split("#")[0], f"duplicate task id (first defined at {first.source}, "
                                f"again at {task.source})", task_id=task.id, field_name="id")
        seen[task.id] = task


def shown_path(path: Path, root: str | Path | None) -> str:
    """``path`` as an error shows it: relative to ``root`` when it lies inside, else as given."""
    if root is not None:
        try:
            return str(path.resolve().relative_to(Path(root).resolve()))
        except ValueError:
            pass
    return str(path)
