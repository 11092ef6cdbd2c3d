"""The evaluators of the taguette_more and vscode_more tasks (checks/taguette_more.py, checks/vscode_more.py and
the first kinds they reuse) without docker: databases built from the start database the way Taguette changes
them, workspace files written the way VS Code writes them. The right result and an equivalent one pass; near
misses (the right operation with a wrong parameter, the result in the wrong place, an unsaved change, a file of
another kind under the expected name) fail the milestone that names them; a missing artifact fails, never
errors. Ground truths are those of suites/prosoft/tasks/taguette_more.json and vscode_more.json."""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from suites.prosoft.templates import KINDS, TEMPLATES

from .evaluation import failed, milestones, truth_of

ROOT = Path(__file__).resolve().parents[2]
TAGUETTE = ROOT / "fixtures" / "prosoft" / "taguette"
VSCODE = ROOT / "fixtures" / "prosoft" / "vscode"
MORE = ROOT / "fixtures" / "prosoft" / "apps_more"
START_DB = TAGUETTE / "study.sqlite3"


def load(name: str) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in json.loads((ROOT / f"suites/prosoft/tasks/{name}.json").read_text())["tasks"]}


TAG_TASKS, CODE_TASKS = load("taguette_more"), load("vscode_more")


def steps(task: dict[str, Any]) -> list[dict[str, Any]]:
    if task["template"] == "pipeline":
        return [dict(s) for s in task["ground_truth"]["steps"]]
    return [{**task["ground_truth"], "template": task["template"]}]


def run_all(task: dict[str, Any], artifacts: dict[str, Path]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for step in steps(task):
        out.update(milestones(step["template"], step, artifacts))
    return out


def tg(task_id: str, kind: str, artifacts: dict[str, Path]) -> dict[str, str | None]:
    return milestones(kind, truth_of(TAG_TASKS, task_id, kind), artifacts)


def vs(task_id: str, kind: str, artifacts: dict[str, Path]) -> dict[str, str | None]:
    return milestones(kind, truth_of(CODE_TASKS, task_id, kind), artifacts)


@pytest.mark.parametrize("tasks,app", [(TAG_TASKS, "taguette"), (CODE_TASKS, "vscode")])
def test_every_task_uses_known_kinds_and_its_start_files(tasks: dict[str, dict[str, Any]], app: str) -> None:
    assert tasks
    for task in tasks.values():
        assert task["template"] in TEMPLATES, task["id"]
        assert all(s["template"] in KINDS for s in steps(task)), task["id"]
        assert task["apps"] == [app] and task["demonstration"]["actions"], task["id"]
        assert all((ROOT / f["src"]).is_file() for f in task["start_files"]), task["id"]
        assert task["level"] in ("L1", "L2") and task.get("knowledge"), task["id"]


def test_no_two_tasks_share_start_files_and_expected_result() -> None:
    seen: dict[str, str] = {}
    for task in [*TAG_TASKS.values(), *CODE_TASKS.values(), *load("taguette").values(), *load("vscode").values()]:
        key = json.dumps([sorted(f["src"] for f in task["start_files"]), steps(task)], sort_keys=True)
        assert key not in seen, f"{task['id']} repeats {seen.get(key)}"
        seen[key] = task["id"]


# --- Taguette: databases ---------------------------------------------------------------------------------------

def db_copy(tmp_path: Path, name: str = "study.sqlite3") -> tuple[Path, sqlite3.Connection]:
    path = tmp_path / name
    shutil.copy(START_DB, path)
    return path, sqlite3.connect(path)


def tag_id(conn: sqlite3.Connection, path: str) -> int:
    return int(conn.execute("SELECT id FROM tags WHERE path = ?", (path,)).fetchone()[0])


def delete_tag(conn: sqlite3.Connection, path: str) -> None:
    """The tag deleted as Taguette does: its highlight links go, the highlights stay."""
    conn.execute("DELETE FROM highlight_tags WHERE tag_id = ?", (tag_id(conn, path),))
    conn.execute("DELETE FROM tags WHERE path = ?", (path,))
    conn.commit()


def highlight_id(conn: sqlite3.Connection, text: str) -> int:
    return int(conn.execute("SELECT id FROM highlights WHERE snippet LIKE ?", (f"%{text[:30]}%",)).fetchone()[0])


def add_document(conn: sqlite3.Connection, name: str, paragraphs: list[str]) -> int:
    cur = conn.execute("INSERT INTO documents (name, description, filename, created, project_id, text_direction, "
                       "contents) VALUES (?, '', 'interview_c.html', '2026-01-01', 1, 'LEFT_TO_RIGHT', ?)",
                       (name, "".join(f"<p>{p}</p>" for p in paragraphs)))
    conn.commit()
    return int(cur.lastrowid or 0)


def add_highlight(conn: sqlite3.Connection, doc: int, paragraphs: list[str], index: int, tags: list[str]) -> None:
    start = sum(len(p) for p in paragraphs[:index])
    cur = conn.execute("INSERT INTO highlights (document_id, start_offset, end_offset, snippet) VALUES (?, ?, ?, ?)",
                       (doc, start, start + len(paragraphs[index]), paragraphs[index]))
    for tag in tags:
        conn.execute("INSERT INTO highlight_tags VALUES (?, ?)", (cur.lastrowid, tag_id(conn, tag)))
    conn.commit()


def fixtures_module() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("taguette_fixtures_more", TAGUETTE / "make_fixtures.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FX = fixtures_module()
A, B = FX.DOCUMENTS["Interview A"], FX.DOCUMENTS["Interview B"]
C_NAME, C_TEXT = FX.IMPORTS["interview_c.html"]


def test_the_start_database_fails_every_taguette_task(tmp_path: Path) -> None:
    """noop's outcome: the database as it started, nothing downloaded."""
    path, _ = db_copy(tmp_path)
    for task_id, task in TAG_TASKS.items():
        assert failed(run_all(task, {"db": path})), task_id


def test_add_document(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    add_document(conn, "Interview C", C_TEXT)
    assert not failed(tg("taguette-add-document", "taguette_document", {"db": path}))
    conn.execute("UPDATE documents SET name = 'interview_c.html' WHERE name = 'Interview C'")  # no name given
    conn.commit()
    assert failed(tg("taguette-add-document", "taguette_document", {"db": path})) == [
        "document 'Interview C' added", "document 'Interview C' holds the file's text"]


def test_add_document_of_the_wrong_file_fails(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    add_document(conn, "Interview C", A)
    assert failed(tg("taguette-add-document", "taguette_document", {"db": path})) == [
        "document 'Interview C' holds the file's text"]


def test_rename_project(tmp_path: Path) -> None:
    truth = truth_of(TAG_TASKS, "taguette-rename-project", "taguette_project_meta")
    path, conn = db_copy(tmp_path)
    conn.execute("UPDATE projects SET name = ?, description = ? WHERE id = 1", (truth["name"], truth["description"]))
    conn.commit()
    assert not failed(tg("taguette-rename-project", "taguette_project_meta", {"db": path}))
    conn.execute("UPDATE projects SET description = 'Semi-structured interviews' WHERE id = 1")  # description kept
    conn.commit()
    assert failed(tg("taguette-rename-project", "taguette_project_meta", {"db": path})) == [
        "the project has the new description"]


def test_a_new_project_of_the_name_is_no_rename(tmp_path: Path) -> None:
    truth = truth_of(TAG_TASKS, "taguette-rename-project", "taguette_project_meta")
    path, conn = db_copy(tmp_path)
    conn.execute("INSERT INTO projects (name, description, created) VALUES (?, ?, '2026-01-01')",
                 (truth["name"], truth["description"]))
    conn.commit()
    result = tg("taguette-rename-project", "taguette_project_meta", {"db": path})
    assert failed(result) == ["the interviews project is named 'Remote work study 2025'",
                              "the project has the new description"]
    assert "a new project of that name" in (result["the interviews project is named 'Remote work study 2025'"] or "")


def test_tag_description(tmp_path: Path) -> None:
    truth = truth_of(TAG_TASKS, "taguette-tag-description", "taguette_tag_edit")
    path, conn = db_copy(tmp_path)
    conn.execute("UPDATE tags SET description = ? WHERE path = 'meetings'", (truth["description"],))
    conn.commit()
    assert not failed(tg("taguette-tag-description", "taguette_tag_edit", {"db": path}))
    # the description given to the wrong tag
    path2, conn2 = db_copy(tmp_path, "other.sqlite3")
    conn2.execute("UPDATE tags SET description = ? WHERE path = 'family'", (truth["description"],))
    conn2.commit()
    assert failed(tg("taguette-tag-description", "taguette_tag_edit", {"db": path2})) == [
        "tag 'meetings' has the new description"]


def test_tag_deleted_and_created_again_loses_its_highlights(tmp_path: Path) -> None:
    truth = truth_of(TAG_TASKS, "taguette-tag-description", "taguette_tag_edit")
    path, conn = db_copy(tmp_path)
    delete_tag(conn, "meetings")
    conn.execute("INSERT INTO tags (project_id, path, description) VALUES (1, 'meetings', ?)", (truth["description"],))
    conn.commit()
    assert failed(tg("taguette-tag-description", "taguette_tag_edit", {"db": path})) == [
        "tag 'meetings' keeps its highlights"]


def test_delete_highlight(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    hid = highlight_id(conn, B[1])
    conn.execute("DELETE FROM highlight_tags WHERE highlight_id = ?", (hid,))
    conn.execute("DELETE FROM highlights WHERE id = ?", (hid,))
    conn.commit()
    assert not failed(tg("taguette-delete-highlight", "taguette_highlight_delete", {"db": path}))


def test_delete_the_wrong_highlight_fails(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    hid = highlight_id(conn, B[0])
    conn.execute("DELETE FROM highlight_tags WHERE highlight_id = ?", (hid,))
    conn.execute("DELETE FROM highlights WHERE id = ?", (hid,))
    conn.commit()
    assert failed(tg("taguette-delete-highlight", "taguette_highlight_delete", {"db": path})) == [
        "the highlight of 'Interview B' is deleted", "the other highlights are kept"]


def test_deleting_the_tag_instead_of_the_highlight_fails(tmp_path: Path) -> None:
    """Taguette keeps the highlight of a deleted tag, untagged."""
    path, conn = db_copy(tmp_path)
    delete_tag(conn, "meetings")
    assert failed(tg("taguette-delete-highlight", "taguette_highlight_delete", {"db": path})) == [
        "the highlight of 'Interview B' is deleted", "the codebook keeps its tags"]


def test_retag_highlight(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    conn.execute("INSERT INTO highlight_tags VALUES (?, ?)", (highlight_id(conn, B[3]), tag_id(conn, "isolation")))
    conn.commit()
    assert not failed(tg("taguette-retag-highlight", "taguette_highlight_tags", {"db": path}))


def test_retag_replacing_the_old_tag_fails(tmp_path: Path) -> None:
    path, conn = db_copy(tmp_path)
    conn.execute("UPDATE highlight_tags SET tag_id = ? WHERE highlight_id = ?",
                 (tag_id(conn, "isolation"), highlight_id(conn, B[3])))
    conn.commit()
    assert failed(tg("taguette-retag-highlight", "taguette_highlight_tags", {"db": path})) == [
        "the highlight of 'Interview B' is tagged isolation, loneliness"]


def test_retag_by_a_second_highlight_fails(tmp_path: Path) -> None:
    """A new highlight over the same passage tagged 'isolation': two highlights, the old one unchanged."""
    path, conn = db_copy(tmp_path)
    add_highlight(conn, 2, B, 3, ["isolation", "loneliness"])
    assert failed(tg("taguette-retag-highlight", "taguette_highlight_tags", {"db": path})) == [
        "no highlight added or removed (the existing one edited)"]


def test_a_file_that_is_no_database_fails_every_new_kind(tmp_path: Path) -> None:
    bogus = tmp_path / "study.sqlite3"
    bogus.write_text("SQLite format 3 -- not really")
    for task in TAG_TASKS.values():
        result = run_all(task, {"db": bogus})
        assert result and all(m for m in result.values()), task["id"]
    for task in TAG_TASKS.values():  # no database copied out at all
        assert all(m for m in run_all(task, {}).values()), task["id"]


# --- VS Code: workspace files ----------------------------------------------------------------------------------

def jsonc(path: Path, data: Any, comment: str = "// written by VS Code") -> Path:
    """``data`` as VS Code writes a settings-like file: tab indentation, a comment, a trailing comma."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps(data, indent="\t")
    if isinstance(data, dict) and data:
        body = body[:-2] + ",\n}"  # VS Code tolerates a trailing comma
    path.write_text(f"{comment}\n{body}\n")
    return path


USER_SETTINGS = json.loads((VSCODE / "settings.json").read_text())


def test_the_start_files_fail_every_vscode_task() -> None:
    """noop's outcome: the start user settings, the empty workspace settings of the tasks that start with them,
    no tasks.json or snippets, the workspace as it was."""
    artifacts = {"settings": VSCODE / "settings.json", "defaults": MORE / "vscode" / "defaults.json",
                 "workspace": MORE / "vscode" / "workspace_settings.json",
                 **{n: VSCODE / "project" / f"{n}.py" for n in ("app", "config", "utils")},
                 "old": VSCODE / "project" / "notes.txt",
                 **{Path(n).stem: MORE / "vscode" / "web" / n for n in ("prices.js", "cart.js")}}
    for task_id, task in CODE_TASKS.items():
        assert failed(run_all(task, artifacts)), task_id


def test_workspace_setting(tmp_path: Path) -> None:
    workspace = jsonc(tmp_path / ".vscode" / "settings.json", {"files.trimTrailingWhitespace": True})
    user = VSCODE / "settings.json"
    assert not failed(vs("vscode-workspace-setting", "vscode_workspace_setting",
                         {"workspace": workspace, "settings": user}))
    off = jsonc(tmp_path / "off" / "settings.json", {"files.trimTrailingWhitespace": False})
    assert failed(vs("vscode-workspace-setting", "vscode_workspace_setting", {"workspace": off, "settings": user})
                  ) == ["workspace: files.trimTrailingWhitespace = true"]


def test_workspace_setting_in_the_user_settings_fails(tmp_path: Path) -> None:
    """The User tab instead of the Workspace tab: the user's settings.json holds it, no .vscode/settings.json."""
    user = jsonc(tmp_path / "settings.json", {**USER_SETTINGS, "files.trimTrailingWhitespace": True})
    assert failed(vs("vscode-workspace-setting", "vscode_workspace_setting", {"settings": user})) == [
        "workspace: files.trimTrailingWhitespace = true", "the user settings do not set them"]


def test_test_task(tmp_path: Path) -> None:
    template = {"version": "2.0.0", "tasks": [{"label": "test", "type": "shell",
                                              "command": "python -m unittest discover"}]}
    path = jsonc(tmp_path / "tasks.json", template, "// See https://go.microsoft.com/fwlink/?LinkId=733558")
    assert not failed(vs("vscode-test-task", "vscode_task", {"tasks": path}))
    # the same command line as command and args
    split = {"version": "2.0.0", "tasks": [{"label": "test", "type": "shell", "command": "python",
                                           "args": ["-m", "unittest", "discover"]}]}
    assert not failed(vs("vscode-test-task", "vscode_task", {"tasks": jsonc(tmp_path / "s.json", split)}))


def test_task_near_misses(tmp_path: Path) -> None:
    def tasks_file(**task: Any) -> dict[str, Path]:
        data = {"version": "2.0.0", "tasks": [{"label": "test", "type": "shell",
                                              "command": "python -m unittest discover", **task}]}
        return {"tasks": jsonc(tmp_path / "tasks.json", data)}
    # the template left as it was (label "echo", command "echo Hello")
    echo = tasks_file(label="echo", command="echo Hello")
    assert failed(vs("vscode-test-task", "vscode_task", echo)) == ["task 'test' runs 'python -m unittest discover'"]
    assert failed(vs("vscode-test-task", "vscode_task", tasks_file(command="python -m unittest"))) == [
        "task 'test' runs 'python -m unittest discover'"]
    assert failed(vs("vscode-test-task", "vscode_task", tasks_file(type="process"))) == [
        "task 'test' runs 'python -m unittest discover'"]
    # a launch configuration under the name tasks.json
    launch = jsonc(tmp_path / "launch.json", {"version": "0.2.0", "configurations": []})
    assert failed(vs("vscode-test-task", "vscode_task", {"tasks": launch})) == [
        "tasks is a tasks file of version 2.0.0", "task 'test' runs 'python -m unittest discover'"]
    assert len(failed(vs("vscode-test-task", "vscode_task", {}))) == 2


def snippets_file(tmp_path: Path, snippets: dict[str, Any]) -> Path:
    path = tmp_path / "python.json"
    example = ("\t// Place your snippets for python here. Each snippet is defined under a snippet name and has a "
               "prefix, body and\n\t// description. Example:\n\t// \"Print to console\": {\n\t// \t\"prefix\": "
               "\"log\",\n\t// }\n")
    body = ",\n".join(f"\t{json.dumps(k)}: {json.dumps(v)}" for k, v in snippets.items())
    path.write_text("{\n" + example + body + "\n}\n")
    return path


def test_snippet(tmp_path: Path) -> None:
    good = {"prefix": "bp", "body": ["breakpoint()"], "description": "Stop in the debugger"}
    assert not failed(vs("vscode-python-snippet", "vscode_snippet",
                         {"snippets": snippets_file(tmp_path, {"Breakpoint": good})}))
    as_string = {"prefix": ["bp", "brk"], "body": "breakpoint()", "description": "Stop in the debugger"}
    assert not failed(vs("vscode-python-snippet", "vscode_snippet",
                         {"snippets": snippets_file(tmp_path, {"Any name": as_string})}))
    wrong_body = {**good, "body": ["import pdb; pdb.set_trace()"]}
    assert failed(vs("vscode-python-snippet", "vscode_snippet",
                     {"snippets": snippets_file(tmp_path, {"Breakpoint": wrong_body})})) == [
        "the snippet 'bp' inserts the expected lines"]
    wrong_prefix = {**good, "prefix": "breakpoint"}
    assert failed(vs("vscode-python-snippet", "vscode_snippet",
                     {"snippets": snippets_file(tmp_path, {"Breakpoint": wrong_prefix})})) == [
        "a snippet with the prefix 'bp'", "the snippet 'bp' inserts the expected lines",
        "the snippet 'bp' has the description"]
    # only the commented example: the file VS Code creates, not edited
    assert len(failed(vs("vscode-python-snippet", "vscode_snippet", {"snippets": snippets_file(tmp_path, {})}))) == 3


def test_json_format(tmp_path: Path) -> None:
    source = json.loads((MORE / "vscode" / "defaults.json").read_text())
    path = tmp_path / "defaults.json"
    path.write_text(json.dumps(source, indent=4))  # VS Code writes no final newline
    assert not failed(vs("vscode-format-json", "vscode_json_format", {"defaults": path}))
    path.write_text(json.dumps(source, indent=2) + "\n")  # another indentation than the task's
    assert failed(vs("vscode-format-json", "vscode_json_format", {"defaults": path})) == [
        "defaults is formatted (4-space indentation, one member a line)"]
    path.write_text(json.dumps(source, indent="\t") + "\n")
    assert failed(vs("vscode-format-json", "vscode_json_format", {"defaults": path})) == [
        "defaults is formatted (4-space indentation, one member a line)"]
    path.write_text(json.dumps({**source, "timeout": 30}, indent=4))  # formatted, a value changed
    assert failed(vs("vscode-format-json", "vscode_json_format", {"defaults": path})) == [
        "defaults holds the same data"]
    # formatted in the editor, not saved: the minified start file on disk
    assert failed(vs("vscode-format-json", "vscode_json_format", {"defaults": MORE / "vscode" / "defaults.json"})) == [
        "defaults is formatted (4-space indentation, one member a line)"]
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(16))
    assert len(failed(vs("vscode-format-json", "vscode_json_format", {"defaults": path}))) == 2


def highlights_csv(path: Path, rows: list[tuple[str, str, str]], ids: list[int] | None = None) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "document", "tag", "content"])
        for n, (doc, tag, text) in enumerate(rows):
            writer.writerow([ids[n] if ids else n + 1, doc, tag, text])
    return path


# --- L2 pipelines ----------------------------------------------------------------------------------------------

CODEBOOK_HEADER = "tag,description,number of highlights,number of documents\r\n"


def codebook_csv(path: Path, counts: dict[str, int], descriptions: dict[str, str] | None = None) -> Path:
    descriptions = {**FX.TAGS, **(descriptions or {})}
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["tag", "description", "number of highlights", "number of documents"])
        for tag, n in counts.items():
            writer.writerow([tag, descriptions.get(tag, ""), n, 1])
    return path


def start_counts() -> dict[str, int]:
    counts = {t: 0 for t in FX.TAGS}
    for _doc, _index, tags in FX.HIGHLIGHTS:
        for t in tags:
            counts[t] += 1
    return counts


def test_import_and_code(tmp_path: Path) -> None:
    task = TAG_TASKS["taguette-import-and-code"]
    path, conn = db_copy(tmp_path)
    doc = add_document(conn, C_NAME, C_TEXT)
    add_highlight(conn, doc, C_TEXT, 1, ["meetings"])
    good = codebook_csv(tmp_path / "codebook.csv", {**start_counts(), "meetings": 2})
    assert not failed(run_all(task, {"db": path, "codebook": good}))
    # exported before the highlight was saved
    stale = codebook_csv(tmp_path / "stale.csv", start_counts())
    assert failed(run_all(task, {"db": path, "codebook": stale})) == [
        "codebook is the codebook as CSV with each tag's highlight count"]


def test_import_and_code_on_the_wrong_paragraph_fails(tmp_path: Path) -> None:
    task = TAG_TASKS["taguette-import-and-code"]
    path, conn = db_copy(tmp_path)
    doc = add_document(conn, C_NAME, C_TEXT)
    add_highlight(conn, doc, C_TEXT, 2, ["meetings"])
    good = codebook_csv(tmp_path / "codebook.csv", {**start_counts(), "meetings": 2})
    assert failed(run_all(task, {"db": path, "codebook": good})) == [
        "a new highlight of 'Interview C' covers the passage", "the highlight is tagged meetings"]


def test_retag_and_export(tmp_path: Path) -> None:
    task = TAG_TASKS["taguette-retag-and-export"]
    path, conn = db_copy(tmp_path)
    conn.execute("INSERT INTO highlight_tags VALUES (?, ?)", (highlight_id(conn, B[3]), tag_id(conn, "isolation")))
    conn.commit()
    # as Taguette 1.5.2 exported it in the container: a row per tag of each highlight in the view
    both = highlights_csv(tmp_path / "isolation.csv", [("Interview A", "isolation", A[1]),
                                                       ("Interview B", "isolation", B[3]),
                                                       ("Interview B", "loneliness", B[3])], ids=[1, 6, 6])
    assert not failed(run_all(task, {"db": path, "highlights": both}))
    before = highlights_csv(tmp_path / "before.csv", [("Interview A", "isolation", A[1])])  # exported first
    assert failed(run_all(task, {"db": path, "highlights": before})) == [
        "highlights holds exactly the highlights tagged 'isolation'"]
    # the export of every tag (See all highlights) under the expected name
    everything = highlights_csv(tmp_path / "all.csv", [("Interview A", "isolation", A[1]),
                                                       ("Interview B", "isolation", B[3]),
                                                       ("Interview B", "loneliness", B[3]),
                                                       ("Interview A", "commute", A[3])], ids=[1, 6, 6, 3])
    assert failed(run_all(task, {"db": path, "highlights": everything})) == [
        "highlights holds exactly the highlights tagged 'isolation'"]
    # the codebook (QDC) under the expected name
    qdc = tmp_path / "codebook.qdc"
    qdc.write_text('<?xml version="1.0"?><CodeBook xmlns="urn:QDA-XML:codebook:1.0"><Codes/></CodeBook>')
    assert failed(run_all(task, {"db": path, "highlights": qdc})) == [
        "highlights holds exactly the highlights tagged 'isolation'"]


def test_rename_tag_and_qdc(tmp_path: Path) -> None:
    task = TAG_TASKS["taguette-rename-tag-and-qdc"]
    truth = truth_of(TAG_TASKS, "taguette-rename-tag-and-qdc", "taguette_tag_edit")
    path, conn = db_copy(tmp_path)
    conn.execute("UPDATE tags SET path = 'equipment', description = ? WHERE path = 'technology'",
                 (truth["description"],))
    conn.commit()
    names = truth_of(TAG_TASKS, "taguette-rename-tag-and-qdc", "taguette_codebook")["tags"]
    codes = "".join(f'<Code guid="{i}" name="{t}" isCodable="true"/>' for i, t in enumerate(names))
    qdc = tmp_path / "codebook.qdc"
    qdc.write_text(f'<?xml version="1.0"?><CodeBook xmlns="urn:QDA-XML:codebook:1.0"><Codes>{codes}</Codes>'
                   f'</CodeBook>')
    assert not failed(run_all(task, {"db": path, "codebook": qdc}))
    # renamed, description left as it was
    conn.execute("UPDATE tags SET description = 'Problems with equipment or the network' WHERE path = 'equipment'")
    conn.commit()
    assert failed(run_all(task, {"db": path, "codebook": qdc})) == ["tag 'equipment' has the new description"]
    # the CSV codebook under the .qdc name
    csv_file = codebook_csv(tmp_path / "codebook.qdc", start_counts())
    assert "codebook is the codebook as REFI-QDA QDC" in failed(run_all(task, {"db": path, "codebook": csv_file}))


def test_second_wave(tmp_path: Path) -> None:
    task = TAG_TASKS["taguette-second-wave"]
    meta = truth_of(TAG_TASKS, "taguette-second-wave", "taguette_project_meta")
    tag = truth_of(TAG_TASKS, "taguette-second-wave", "taguette_tag_new")
    path, conn = db_copy(tmp_path)
    conn.execute("UPDATE projects SET name = ?, description = ? WHERE id = 1", (meta["name"], meta["description"]))
    conn.execute("INSERT INTO tags (project_id, path, description) VALUES (1, ?, ?)", (tag["tag"], tag["description"]))
    add_highlight(conn, 2, B, 2, [tag["tag"]])
    assert not failed(run_all(task, {"db": path}))
    # the tag created and used, the project not renamed: the later steps look for the renamed project
    path2, conn2 = db_copy(tmp_path, "unrenamed.sqlite3")
    conn2.execute("INSERT INTO tags (project_id, path, description) VALUES (1, ?, ?)", (tag["tag"], tag["description"]))
    add_highlight(conn2, 2, B, 2, [tag["tag"]])
    assert "the interviews project is named 'Remote work study 2025'" in failed(run_all(task, {"db": path2}))
    # the highlight tagged with an older tag
    path3, conn3 = db_copy(tmp_path, "oldtag.sqlite3")
    conn3.execute("UPDATE projects SET name = ?, description = ? WHERE id = 1", (meta["name"], meta["description"]))
    conn3.execute("INSERT INTO tags (project_id, path, description) VALUES (1, ?, ?)", (tag["tag"], tag["description"]))
    add_highlight(conn3, 2, B, 2, ["technology"])
    assert failed(run_all(task, {"db": path3})) == ["the highlight is tagged workspace"]


def test_fix_coding(tmp_path: Path) -> None:
    task = TAG_TASKS["taguette-fix-coding"]
    path, conn = db_copy(tmp_path)
    hid = highlight_id(conn, B[1])
    conn.execute("DELETE FROM highlight_tags WHERE highlight_id = ?", (hid,))
    conn.execute("DELETE FROM highlights WHERE id = ?", (hid,))
    add_highlight(conn, 2, B, 2, ["technology"])
    export = highlights_csv(tmp_path / "technology.csv", [("Interview A", "technology", A[2]),
                                                          ("Interview B", "technology", B[2])])
    assert not failed(run_all(task, {"db": path, "highlights": export}))
    # the 'meetings' highlight retagged 'technology' instead of deleted and coded anew
    path2, conn2 = db_copy(tmp_path, "retagged.sqlite3")
    conn2.execute("UPDATE highlight_tags SET tag_id = ? WHERE highlight_id = ?",
                  (tag_id(conn2, "technology"), highlight_id(conn2, B[1])))
    conn2.commit()
    assert failed(run_all(task, {"db": path2, "highlights": export})) == [
        "the highlight of 'Interview B' is deleted", "a new highlight of 'Interview B' covers the passage",
        "the highlight is tagged technology"]
    # the new highlight made, but another start highlight deleted as well
    conn.execute("DELETE FROM highlights WHERE id = ?", (highlight_id(conn, A[2]),))
    conn.commit()
    assert failed(run_all(task, {"db": path, "highlights": export})) == [
        "the other highlights are kept", "the other earlier highlights are kept"]


def test_describe_and_export(tmp_path: Path) -> None:
    task = TAG_TASKS["taguette-describe-and-export"]
    wanted = truth_of(TAG_TASKS, "taguette-describe-and-export", "taguette_codebook_descriptions")["descriptions"]
    path, conn = db_copy(tmp_path)
    for tag, description in wanted.items():
        conn.execute("UPDATE tags SET description = ? WHERE path = ?", (description, tag))
    conn.commit()
    good = codebook_csv(tmp_path / "codebook.csv", start_counts(), wanted)
    assert not failed(run_all(task, {"db": path, "codebook": good}))
    one = codebook_csv(tmp_path / "one.csv", start_counts(), {"meetings": wanted["meetings"]})  # exported too early
    assert failed(run_all(task, {"db": path, "codebook": one})) == [
        "codebook is the codebook with the new descriptions of family, meetings"]
    qdc = tmp_path / "codebook.qdc"
    qdc.write_text('<?xml version="1.0"?><CodeBook xmlns="urn:QDA-XML:codebook:1.0"><Codes/></CodeBook>')
    assert failed(run_all(task, {"db": path, "codebook": qdc})) == [
        "codebook is the codebook with the new descriptions of family, meetings"]


def settings_file(path: Path, data: dict[str, Any]) -> Path:
    return jsonc(path, data, "// user settings")


def tasks_json(path: Path, label: str, command: str) -> Path:
    return jsonc(path, {"version": "2.0.0", "tasks": [{"label": label, "type": "shell", "command": command}]})


def test_workspace_test_setup(tmp_path: Path) -> None:
    task = CODE_TASKS["vscode-workspace-test-setup"]
    workspace = jsonc(tmp_path / ".vscode" / "settings.json", {"files.trimTrailingWhitespace": True})
    tasks = tasks_json(tmp_path / ".vscode" / "tasks.json", "test", "python -m unittest discover")
    assert not failed(run_all(task, {"workspace": workspace, "tasks": tasks, "settings": VSCODE / "settings.json"}))
    assert failed(run_all(task, {"workspace": workspace, "settings": VSCODE / "settings.json"})) == [
        "tasks is a tasks file of version 2.0.0", "task 'test' runs 'python -m unittest discover'"]


def test_json_style(tmp_path: Path) -> None:
    task = CODE_TASKS["vscode-json-style"]
    source = json.loads((MORE / "vscode" / "defaults.json").read_text())
    formatted = tmp_path / "defaults.json"
    formatted.write_text(json.dumps(source, indent=4))
    workspace = jsonc(tmp_path / ".vscode" / "settings.json", {"editor.formatOnSave": True})
    assert not failed(run_all(task, {"defaults": formatted, "workspace": workspace}))
    user = settings_file(tmp_path / "settings.json", {**USER_SETTINGS, "editor.formatOnSave": True})
    assert failed(run_all(task, {"defaults": formatted, "settings": user})) == [
        "workspace: editor.formatOnSave = true", "the user settings do not set them"]


def web(tmp_path: Path, new: str, names: tuple[str, ...] = ("prices", "cart")) -> dict[str, Path]:
    out = {}
    for name in ("prices", "cart"):
        text = (MORE / "vscode" / "web" / f"{name}.js").read_text()
        out[name] = tmp_path / f"{name}.js"
        out[name].write_text(text.replace("netPrice", new) if name in names else text)
    return out


def test_js_rename_and_check(tmp_path: Path) -> None:
    task = CODE_TASKS["vscode-js-rename-and-check"]
    tasks = tasks_json(tmp_path / "tasks.json", "check", "node --check web/cart.js")
    assert not failed(run_all(task, {**web(tmp_path, "priceExVat"), "tasks": tasks}))
    # renamed in prices.js only: cart.js unsaved or not followed
    assert failed(run_all(task, {**web(tmp_path, "priceExVat", ("prices",)), "tasks": tasks})) == [
        "cart: 'netPrice' replaced by 'priceExVat'"]
    assert len(failed(run_all(task, {**web(tmp_path, "netPriceExVat"), "tasks": tasks}))) == 2


def test_snippet_setup(tmp_path: Path) -> None:
    task = CODE_TASKS["vscode-snippet-setup"]
    snippet = {"prefix": "bp", "body": ["breakpoint()"], "description": "Stop in the debugger"}
    snippets = snippets_file(tmp_path, {"Breakpoint": snippet})
    user = settings_file(tmp_path / "settings.json", {**USER_SETTINGS, "editor.tabCompletion": "on"})
    assert not failed(run_all(task, {"snippets": snippets, "settings": user}))
    only = settings_file(tmp_path / "only.json", {**USER_SETTINGS, "editor.tabCompletion": "onlySnippets"})
    assert failed(run_all(task, {"snippets": snippets, "settings": only})) == ['editor.tabCompletion = "on"']


def test_refactor_and_run_task(tmp_path: Path) -> None:
    task = CODE_TASKS["vscode-refactor-and-run-task"]
    files = {}
    for name in ("app", "config", "utils"):
        files[name] = tmp_path / f"{name}.py"
        files[name].write_text((VSCODE / "project" / f"{name}.py").read_text().replace("MAX_RETRIES", "MAX_ATTEMPTS"))
    tasks = tasks_json(tmp_path / "tasks.json", "run", "python app.py")
    assert not failed(run_all(task, {**files, "tasks": tasks}))
    wrong = tasks_json(tmp_path / "wrong.json", "run", "python3 app.py")
    assert failed(run_all(task, {**files, "tasks": wrong})) == ["task 'run' runs 'python app.py'"]


def test_release_prep(tmp_path: Path) -> None:
    task = CODE_TASKS["vscode-release-prep"]
    config = tmp_path / "config.py"
    config.write_text("MAX_RETRIES = 3\nTIMEOUT = 30\n")
    renamed = tmp_path / "roadmap.md"
    renamed.write_text((VSCODE / "project" / "notes.txt").read_text())
    formatted = tmp_path / "defaults.json"
    formatted.write_text(json.dumps(json.loads((MORE / "vscode" / "defaults.json").read_text()), indent=4))
    good = {"config": config, "renamed": renamed, "defaults": formatted}
    assert not failed(run_all(task, good))
    # a copy instead of a rename
    assert failed(run_all(task, {**good, "old": VSCODE / "project" / "notes.txt"})) == ["old no longer exists"]
    # formatted but not saved
    assert failed(run_all(task, {**good, "defaults": MORE / "vscode" / "defaults.json"})) == [
        "defaults is formatted (4-space indentation, one member a line)"]


# which tests above give each new kind its near misses (a kind added without one fails here)
NEAR_MISSES = {
    "taguette_project_meta": [test_rename_project, test_a_new_project_of_the_name_is_no_rename],
    "taguette_tag_edit": [test_tag_description, test_tag_deleted_and_created_again_loses_its_highlights,
                          test_rename_tag_and_qdc],
    "taguette_highlight_delete": [test_delete_the_wrong_highlight_fails,
                                  test_deleting_the_tag_instead_of_the_highlight_fails],
    "taguette_highlight_tags": [test_retag_replacing_the_old_tag_fails, test_retag_by_a_second_highlight_fails],
    "taguette_recode": [test_fix_coding],
    "taguette_tag_view_export": [test_retag_and_export],
    "taguette_codebook_descriptions": [test_describe_and_export],
    "vscode_workspace_setting": [test_workspace_setting, test_workspace_setting_in_the_user_settings_fails,
                                 test_json_style],
    "vscode_task": [test_task_near_misses, test_refactor_and_run_task],
    "vscode_snippet": [test_snippet],
    "vscode_json_format": [test_json_format, test_release_prep],
}


def test_every_new_kind_has_near_misses() -> None:
    from suites.prosoft.checks import taguette_more, vscode_more

    assert set(NEAR_MISSES) == set(taguette_more.KINDS) | set(vscode_more.KINDS)
    used = {s["template"] for task in [*TAG_TASKS.values(), *CODE_TASKS.values()] for s in steps(task)}
    assert set(NEAR_MISSES) <= used, sorted(set(NEAR_MISSES) - used)
