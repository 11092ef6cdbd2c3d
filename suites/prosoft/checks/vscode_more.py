"""More VS Code checks (code-server): the files behind the operations of ``make/vscode_more.py`` that the first
kinds (``checks/vscode.py``) do not cover: the workspace's ``.vscode/settings.json`` and ``.vscode/tasks.json``,
a user snippets file, a JSON file put through Format Document. All are read as VS Code writes them (JSON with
comments and trailing commas, ``read_jsonc``).

Kinds (ground-truth keys in brackets):

- ``vscode_workspace_setting``: settings written to the workspace, not the user [``artifact`` (default
  "workspace": ``.vscode/settings.json``), ``values`` {setting: value}, ``user`` (default "settings": the user
  settings.json, which must not set those keys to those values; a missing user file counts as unset)]
- ``vscode_task``: a task in tasks.json [``artifact`` (default "tasks"), ``label``, ``command`` (the command
  line: ``command`` and its ``args`` joined by spaces, white space squashed), ``type`` (default "shell"),
  optional ``group`` ("build", "test": a string or {"kind": ...})]
- ``vscode_snippet``: a snippet in a snippets file [``artifact`` (default "snippets"), ``prefix``, ``body``
  (its lines: a string body is split at newlines), optional ``description``]
- ``vscode_json_format``: a JSON file formatted [``artifact``, ``source`` (the start file, under
  fixtures/prosoft), ``indent`` (default 4)]: the same data as the start file (one milestone), its text laid out
  one member a line with ``indent`` spaces a level (another: JSON.stringify's layout of the file's own data,
  which is VS Code's JSON formatter's), trailing white space and a final newline ignored
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from pytest_cua import fixtures_dir

from ..artifacts import Check, artifact, squash
from .taguette import _require
from .vscode import read_jsonc


def _object(path: Path, name: str, what: str) -> dict[str, Any]:
    data = read_jsonc(path)
    assert isinstance(data, dict), f"{name}: not a JSON object of {what} ({type(data).__name__})"
    return data


def workspace_setting_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "workspace")
    user = truth.get("user", "settings")
    values = truth.get("values") or {}
    if not values:
        raise ValueError("vscode_workspace_setting: ground truth needs 'values'")
    checks: list[Check] = []
    for key, want in sorted(values.items()):
        def check(key: str = key, want: Any = want) -> None:
            got = _object(artifact(ctx, name), name, "settings")
            assert key in got, f"{name}: {key!r} is not set in the workspace settings"
            assert got[key] == want, f"{name}: {key} is {got[key]!r}, expected {want!r}"
        checks.append((f"workspace: {key} = {json.dumps(want)}", check))

    def check_user() -> None:
        path = ctx.artifacts.get(user)
        if path is None or not Path(path).is_file():
            return
        got = _object(Path(path), user, "settings")
        wrong = sorted(k for k, v in values.items() if k in got and got[k] == v)
        assert not wrong, f"{user}: {wrong} set in the user settings (the task asked for the workspace's)"
    checks.append(("the user settings do not set them", check_user))
    return checks


def _command_line(task: Mapping[str, Any]) -> str:
    args = task.get("args") or []
    parts = [str(task.get("command", ""))] + [str(a.get("value", "") if isinstance(a, dict) else a) for a in args]
    return squash(" ".join(parts))


def _group(task: Mapping[str, Any]) -> str:
    group = task.get("group")
    return str(group.get("kind", "")) if isinstance(group, dict) else str(group or "")


def task_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "vscode_task", "label", "command")
    name = truth.get("artifact", "tasks")
    label, command, kind = str(truth["label"]), squash(str(truth["command"])), str(truth.get("type", "shell"))

    def found() -> dict[str, Any]:
        data = _object(artifact(ctx, name), name, "tasks")
        tasks = [t for t in data.get("tasks") or [] if isinstance(t, dict)]
        same = [t for t in tasks if t.get("label") == label]
        assert same, f"{name}: no task labelled {label!r} (labels: {[t.get('label') for t in tasks]})"
        return same[0]

    def check_version() -> None:
        data = _object(artifact(ctx, name), name, "tasks")
        assert data.get("version") == "2.0.0", f"{name}: version {data.get('version')!r}, expected '2.0.0'"

    def check_command() -> None:
        task = found()
        assert task.get("type") == kind, f"{name}: task {label!r} has type {task.get('type')!r}, expected {kind!r}"
        got = _command_line(task)
        assert got == command, f"{name}: task {label!r} runs {got!r}, expected {command!r}"
    checks: list[Check] = [(f"{name} is a tasks file of version 2.0.0", check_version),
                           (f"task {label!r} runs {command!r}", check_command)]
    if truth.get("group"):
        def check_group() -> None:
            got = _group(found())
            assert got == truth["group"], f"{name}: task {label!r} is in group {got!r}, expected {truth['group']!r}"
        checks.append((f"task {label!r} is a {truth['group']} task", check_group))
    return checks


def snippet_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "vscode_snippet", "prefix", "body")
    name = truth.get("artifact", "snippets")
    prefix = str(truth["prefix"])
    want = [str(x).rstrip() for x in truth["body"]]

    def found() -> dict[str, Any]:
        data = _object(artifact(ctx, name), name, "snippets")
        snippets = {k: v for k, v in data.items() if isinstance(v, dict)}
        same = [v for v in snippets.values()
                if prefix == v.get("prefix") or (isinstance(v.get("prefix"), list) and prefix in v["prefix"])]
        assert same, f"{name}: no snippet with the prefix {prefix!r} (prefixes: " \
                     f"{[v.get('prefix') for v in snippets.values()]})"
        return same[0]

    def check_body() -> None:
        body = found().get("body", "")
        lines = "\n".join(body).split("\n") if isinstance(body, list) else str(body).split("\n")
        got = [ln.rstrip() for ln in lines]
        assert got == want, f"{name}: the snippet {prefix!r} inserts {got!r}, expected {want!r}"
    def check_exists() -> None:
        found()
    checks: list[Check] = [(f"a snippet with the prefix {prefix!r}", check_exists),
                           (f"the snippet {prefix!r} inserts the expected lines", check_body)]
    if "description" in truth:
        def check_description() -> None:
            got = squash(str(found().get("description", "")))
            assert got == squash(str(truth["description"])), (
                f"{name}: the snippet's description is {got!r}, expected {truth['description']!r}")
        checks.append((f"the snippet {prefix!r} has the description", check_description))
    return checks


def json_format_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    _require(truth, "vscode_json_format", "artifact", "source")
    name, indent = str(truth["artifact"]), int(truth.get("indent", 4))
    source = fixtures_dir("prosoft") / str(truth["source"])
    if not source.is_file():
        raise ValueError(f"vscode_json_format: source {truth['source']!r} not found ({source})")
    want = json.loads(source.read_text(encoding="utf-8"))

    def text() -> str:
        return artifact(ctx, name).read_text(encoding="utf-8", errors="replace")

    def check_data() -> None:
        try:
            got = json.loads(text())
        except json.JSONDecodeError as exc:
            raise AssertionError(f"{name}: not JSON ({exc})") from None
        assert got == want, f"{name}: the data changed: {got!r}, expected {want!r}"

    def check_layout() -> None:
        raw = text()
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise AssertionError(f"{name}: not JSON ({exc})") from None
        got = [ln.rstrip() for ln in raw.rstrip().split("\n")]
        expected = json.dumps(data, indent=indent, ensure_ascii=False).split("\n")
        if got != expected:
            first = next((k for k, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
            shown = got[first] if first < len(got) else "(end of file)"
            raise AssertionError(f"{name}: not formatted with {indent}-space indentation, one member a line: "
                                 f"line {first + 1} is {shown!r}, expected "
                                 f"{expected[first] if first < len(expected) else '(end of file)'!r}")
    return [(f"{name} holds the same data", check_data),
            (f"{name} is formatted ({indent}-space indentation, one member a line)", check_layout)]


KINDS = {
    "vscode_workspace_setting": workspace_setting_checks,
    "vscode_task": task_checks,
    "vscode_snippet": snippet_checks,
    "vscode_json_format": json_format_checks,
}
