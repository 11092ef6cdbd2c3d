"""SCUBA's released task records as Tasks: the task file of a ``--scuba-root`` checkout and the mapping of one
record to a Task.

Its tasks come from ``data/test_zero_shot.json`` (or ``data/test_demo_aug.json`` with ``--demos``), one pytest
test per record (test id = SCUBA's ``task_id``).

Release record -> Task::

    task_id              -> id
    query                -> instruction (what the agent receives; in the demonstration-augmented file, read
                            with --demos, it already holds the demonstrations)
    memory               -> extra["memory"] (with --demos; not demonstration_text, which agents would add to
                            the instruction a second time)
    category             -> persona (admin / sales / service)
    difficulty           -> difficulty
    query_template_name  -> template (the evaluator key)
    ground_truth_dict    -> ground_truth (the evaluator's arguments)
    everything else      -> extra (``extra["release"]`` is True; ``extra["objects"]`` the record's objects)

A record that does not fit is a ``TaskFileError`` naming the file, the task id and the field: the release
becomes one collection error and the suite's own tasks still collect.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from pytest_cua import Task, TaskFileError
from pytest_cua.tasks.task import _ID, DIFFICULTIES

ZERO_SHOT_FILE = "data/test_zero_shot.json"
DEMO_AUG_FILE = "data/test_demo_aug.json"
PERSONAS = ("admin", "sales", "service")


def release_file(root: str | Path, *, demos: bool) -> Path:
    """The task file of a SCUBA checkout: zero-shot, or demonstration-augmented with ``demos``."""
    return Path(root) / (DEMO_AUG_FILE if demos else ZERO_SHOT_FILE)


def task_from_record(record: Any, *, index: int, path: str, demos: bool, suite: str = "scuba") -> Task:
    """One release record as a Task; a record that does not fit raises TaskFileError naming the field."""
    label = f"#{index}"
    if not isinstance(record, Mapping):
        raise TaskFileError(path, f"a task record must be an object, got {type(record).__name__}", task_id=label)
    tid = record.get("task_id")
    if not isinstance(tid, str) or not _ID.match(tid):
        raise TaskFileError(path, f"must be a non-empty string of letters, digits, '_', '-', '.', got {tid!r}",
                            task_id=label, field_name="task_id")

    def fail(name: str, message: str) -> TaskFileError:
        return TaskFileError(path, message, task_id=tid, field_name=name)

    def text(name: str, choices: Sequence[str] | None = None) -> str:
        value = record.get(name)
        if not isinstance(value, str) or not value.strip():
            raise fail(name, f"must be a non-empty string, got {value!r}")
        if choices is not None and value not in choices:
            raise fail(name, f"must be one of {', '.join(choices)}, got {value!r}")
        return value

    query = text("query")
    persona = text("category", PERSONAS)
    difficulty = text("difficulty", DIFFICULTIES)
    template = text("query_template_name")
    truth = record.get("ground_truth_dict")
    if not isinstance(truth, Mapping):
        raise fail("ground_truth_dict", f"must be an object, got {type(truth).__name__}")
    meta = record.get("query_template_metadata", {})
    if meta is None:
        meta = {}
    if not isinstance(meta, Mapping):
        raise fail("query_template_metadata", f"must be an object, got {type(meta).__name__}")
    lists: dict[str, list[str]] = {}
    for key in ("objects", "metadata_types"):
        value = meta.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail(f"query_template_metadata.{key}", f"must be a list of strings, got {value!r}")
        lists[key] = list(value)
    memory: str | None = None
    if demos:
        memory = text("memory")
    subcategory = record.get("subcategory")
    if subcategory is not None and not isinstance(subcategory, str):
        raise fail("subcategory", f"must be a string, got {subcategory!r}")
    extra = {
        "release": True,
        "subcategory": subcategory,
        "template_id": meta.get("template_id"),
        "objects": lists["objects"],
        "metadata_types": lists["metadata_types"],
        "query_templated": record.get("query_templated"),
        "instance": record.get("instance_dict"),
        "prerequisites": meta.get("prerequisites") or {},
        "memory": memory,
    }
    return Task(id=tid, suite=suite, instruction=query, persona=persona, difficulty=difficulty, template=template,
                ground_truth=dict(truth), source=f"{path}#{index}", extra=extra)


def load_release(path: str | Path, *, demos: bool, suite: str = "scuba", shown: str | None = None) -> list[Task]:
    """Every record of a release task file as a Task (raises TaskFileError on the first that does not fit)."""
    path = Path(path)
    label = shown or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        hint = " (is --scuba-root a checkout of the SCUBA repository?)"
        raise TaskFileError(label, f"cannot be read: {exc.strerror or exc}{hint}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TaskFileError(label, f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, list):
        raise TaskFileError(label, f"must be a JSON list of task records, got {type(data).__name__}")
    return [task_from_record(r, index=i, path=label, demos=demos, suite=suite) for i, r in enumerate(data)]


def tasks_to_prepare(root: Path, *, demos: bool, suite: str) -> list[Task]:
    """The release's tasks, for preparing an org for them; none when the task file does not fit (that is a
    collection error of its own already)."""
    try:
        return load_release(release_file(root, demos=demos), demos=demos, suite=suite)
    except TaskFileError:
        return []
