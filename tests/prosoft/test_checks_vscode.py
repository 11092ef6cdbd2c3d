"""The VS Code evaluators (checks/vscode.py) without docker: settings.json and keybindings.json written as VS Code
writes them (JSON with comments and trailing commas), workspace files from fixtures/prosoft/vscode/project; the
right result passes, near misses (the setting in the workspace's settings instead of the user's, a wrong value,
a key bound to another command, a replace that missed a file, an unsaved edit, a copy instead of a rename) fail
the milestone that names them, a missing artifact fails (never errors). Ground truths are those of
suites/prosoft/tasks/vscode.json."""

from __future__ import annotations

import json
from pathlib import Path

from suites.prosoft.checks.vscode import read_jsonc, strip_jsonc
from suites.prosoft.templates import KINDS, TEMPLATES

from .evaluation import failed, milestones, truth_of

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "prosoft" / "vscode"
TASKS = {t["id"]: t for t in json.loads((ROOT / "suites/prosoft/tasks/vscode.json").read_text())["tasks"]}
START_SETTINGS = json.loads((FIX / "settings.json").read_text())


def run(task_id: str, kind: str, artifacts: dict[str, Path]) -> dict[str, str | None]:
    return milestones(kind, truth_of(TASKS, task_id, kind), artifacts)


def settings(tmp_path: Path, **changes: object) -> Path:
    """The start settings with ``changes``, written as VS Code does (4-space indent, a comment kept)."""
    data = {**START_SETTINGS, **{k.replace("__", "."): v for k, v in changes.items()}}
    path = tmp_path / "settings.json"
    body = json.dumps(data, indent=4)
    path.write_text("// user settings\n" + body[:-2] + ",\n}\n")  # VS Code tolerates a trailing comma
    return path


def test_jsonc() -> None:
    assert json.loads(strip_jsonc('{"a": "x // not a comment", /* c */ "b": [1, 2,],}')) == {
        "a": "x // not a comment", "b": [1, 2]}


def test_every_vscode_task_uses_known_kinds_and_its_start_files() -> None:
    assert len(TASKS) >= 11
    for task in TASKS.values():
        assert task["template"] in TEMPLATES, task["id"]
        steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [task["ground_truth"]]
        assert all(s.get("template", task["template"]) in KINDS for s in steps), task["id"]
        assert task["apps"] == ["vscode"] and task["demonstration"]["actions"], task["id"]
        assert all((ROOT / f["src"]).is_file() for f in task["start_files"]), task["id"]


def test_the_start_files_fail_every_task(tmp_path: Path) -> None:
    """noop's outcome: the start settings, no keybindings.json, the workspace as it was."""
    project = FIX / "project"
    artifacts = {"settings": FIX / "settings.json", "old": project / "notes.txt", "config": project / "config.py",
                 "app": project / "app.py", "utils": project / "utils.py"}
    for task_id, task in TASKS.items():
        steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [task["ground_truth"]]
        results: dict[str, str | None] = {}
        for step in steps:
            results.update(milestones(step.get("template", task["template"]), step, artifacts))
        assert failed(results), task_id


def test_tab_size(tmp_path: Path) -> None:
    assert not failed(run("vscode-tab-size", "vscode_setting", {"settings": settings(tmp_path, editor__tabSize=2)}))
    assert failed(run("vscode-tab-size", "vscode_setting", {"settings": settings(tmp_path, editor__tabSize=4)})) == [
        "editor.tabSize = 2"]
    assert failed(run("vscode-tab-size", "vscode_setting",
                      {"settings": settings(tmp_path, editor__tabSize="2")})) == ["editor.tabSize = 2"]  # a string


def test_setting_in_the_workspace_instead_of_the_user_settings_fails(tmp_path: Path) -> None:
    """The Settings editor's Workspace tab writes project/.vscode/settings.json: the user's file is unchanged."""
    workspace = tmp_path / ".vscode"
    workspace.mkdir()
    (workspace / "settings.json").write_text('{"editor.tabSize": 2}')
    assert failed(run("vscode-tab-size", "vscode_setting", {"settings": FIX / "settings.json"})) == [
        "editor.tabSize = 2"]


def test_setting_that_drops_the_others_fails(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"files.autoSave": "onFocusChange"}')
    assert failed(run("vscode-auto-save", "vscode_setting", {"settings": path})) == ["the other settings are kept"]
    assert failed(run("vscode-auto-save", "vscode_setting",
                      {"settings": settings(tmp_path, files__autoSave="afterDelay")})) == [
        'files.autoSave = "onFocusChange"']


def test_color_theme(tmp_path: Path) -> None:
    good = settings(tmp_path, workbench__colorTheme="Solarized Light")
    assert not failed(run("vscode-color-theme", "vscode_setting", {"settings": good}))
    dark = settings(tmp_path, workbench__colorTheme="Solarized Dark")
    assert failed(run("vscode-color-theme", "vscode_setting", {"settings": dark}))
    assert failed(run("vscode-color-theme", "vscode_setting", {}))


def keybindings(tmp_path: Path, entries: list[dict[str, str]]) -> Path:
    path = tmp_path / "keybindings.json"
    path.write_text("// Place your key bindings in this file to override the defaults\n" +
                    json.dumps(entries, indent=2) + "\n")
    return path


def test_keybinding(tmp_path: Path) -> None:
    good = keybindings(tmp_path, [{"key": "ctrl+alt+l", "command": "editor.action.transformToLowercase"}])
    assert not failed(run("vscode-keybinding", "vscode_keybinding", {"keybindings": good}))
    reordered = keybindings(tmp_path, [{"key": "Alt+Ctrl+L", "command": "editor.action.transformToLowercase"}])
    assert not failed(run("vscode-keybinding", "vscode_keybinding", {"keybindings": reordered}))
    other_key = keybindings(tmp_path, [{"key": "ctrl+shift+l", "command": "editor.action.transformToLowercase"}])
    assert failed(run("vscode-keybinding", "vscode_keybinding", {"keybindings": other_key}))
    other_command = keybindings(tmp_path, [{"key": "ctrl+alt+l", "command": "editor.action.transformToUppercase"}])
    assert failed(run("vscode-keybinding", "vscode_keybinding", {"keybindings": other_command}))
    assert failed(run("vscode-keybinding", "vscode_keybinding", {}))


def test_extension(tmp_path: Path) -> None:
    manifest = tmp_path / "package.json"
    manifest.write_text(json.dumps({"name": "hello-snippets", "publisher": "pytest-cua", "version": "0.1.0"}))
    assert not failed(run("vscode-install-vsix", "vscode_extension", {"manifest": manifest}))
    manifest.write_text(json.dumps({"name": "hello-snippets", "publisher": "pytest-cua", "version": "0.0.9"}))
    assert failed(run("vscode-install-vsix", "vscode_extension", {"manifest": manifest}))
    assert failed(run("vscode-install-vsix", "vscode_extension", {}))  # the .vsix left where it was


def test_rename_file(tmp_path: Path) -> None:
    renamed = tmp_path / "roadmap.md"
    renamed.write_text((FIX / "project" / "notes.txt").read_text())
    assert not failed(run("vscode-rename-file", "vscode_file", {"renamed": renamed}))
    # a copy: the old file is still there
    assert failed(run("vscode-rename-file", "vscode_file", {"renamed": renamed, "old": FIX / "project" / "notes.txt"})
                  ) == ["old no longer exists"]
    # a new empty file of the new name, the old one deleted
    renamed.write_text("")
    assert failed(run("vscode-rename-file", "vscode_file", {"renamed": renamed})) == ["renamed holds the expected text"]


def test_new_file_and_edit(tmp_path: Path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text("# Changelog\nVersion 0.2 makes the retries configurable.\n")
    assert not failed(run("vscode-new-file", "vscode_file", {"changelog": changelog}))
    changelog.write_text("# Changelog\n")
    assert failed(run("vscode-new-file", "vscode_file", {"changelog": changelog}))
    config = tmp_path / "config.py"
    config.write_text("MAX_RETRIES = 3\nTIMEOUT = 30\n")
    assert not failed(run("vscode-edit-line", "vscode_file", {"config": config}))
    config.write_text("MAX_RETRIES = 30\nTIMEOUT = 10\n")  # the wrong line changed
    assert failed(run("vscode-edit-line", "vscode_file", {"config": config}))
    # unsaved: the file on disk is the start file
    assert failed(run("vscode-edit-line", "vscode_file", {"config": FIX / "project" / "config.py"}))


def replaced(tmp_path: Path, names: tuple[str, ...] = ("app", "config", "utils"), new: str = "MAX_ATTEMPTS"
             ) -> dict[str, Path]:
    out = {}
    for name in ("app", "config", "utils"):
        text = (FIX / "project" / f"{name}.py").read_text()
        path = tmp_path / f"{name}.py"
        path.write_text(text.replace("MAX_RETRIES", new) if name in names else text)
        out[name] = path
    return out


def test_replace_in_files(tmp_path: Path) -> None:
    assert not failed(run("vscode-replace-in-files", "vscode_replace", replaced(tmp_path)))
    missed = run("vscode-replace-in-files", "vscode_replace", replaced(tmp_path, ("app", "config")))
    assert failed(missed) == ["utils: 'MAX_RETRIES' replaced by 'MAX_ATTEMPTS'"]
    typo = run("vscode-replace-in-files", "vscode_replace", replaced(tmp_path, new="MAX_ATTEMPT"))
    assert len(failed(typo)) == 3


def test_replace_that_changes_other_text_fails(tmp_path: Path) -> None:
    files = replaced(tmp_path)
    files["config"].write_text("MAX_ATTEMPTS = 5\nTIMEOUT = 10\n")
    assert failed(run("vscode-replace-in-files", "vscode_replace", files)) == [
        "config: 'MAX_RETRIES' replaced by 'MAX_ATTEMPTS'"]


def test_a_settings_file_that_is_not_json_fails_not_errors(tmp_path: Path) -> None:
    bad = tmp_path / "settings.json"
    bad.write_text("{ not json")
    assert all("not JSON" in (m or "") for m in run("vscode-tab-size", "vscode_setting", {"settings": bad}).values())
    assert read_jsonc(FIX / "settings.json")["editor.fontSize"] == 14
