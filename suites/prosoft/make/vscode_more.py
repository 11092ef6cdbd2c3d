"""Writes tasks/vscode_more.json: more VS Code tasks (code-server 4.100, VS Code 1.100, in a Chromium app window),
L1 and L2, on the operations the first ones (``make/vscode.py``) leave out: workspace settings, tasks.json, user
snippets, Format Document, Rename Symbol, and L2 tasks that chain them with the first ones' operations. Run
``python suites/prosoft/make/vscode_more.py`` from the repository root.

The tasks start as the first ones do (``make/vscode.py``'s START: code-server on 127.0.0.1:8080 with the start
user settings, the workspace /root/work/project); some add ``fixtures/prosoft/apps_more/vscode`` files to the
workspace (``make_fixtures.py`` there: a minified ``defaults.json``, two ES modules in ``web/``). Evaluators:
``checks/vscode.py`` and ``checks/vscode_more.py`` on the files VS Code wrote.

Demonstrations use VS Code's keyboard surface as the first ones do (F1, Ctrl+,, Ctrl+P to open a file by name,
'Format Document' from the Command Palette, F2 to rename the symbol under the cursor, Ctrl+G line:column, Ctrl+S).
VS Code closes brackets and quotes as they are typed and types over a closing one typed next: JSON is typed on
one line so that every closing character lands on the one VS Code inserted. What needs VS Code's extensions
(the languages of Configure Snippets, the JSON formatter) is done twice where a second time changes nothing:
they are read seconds after the window shows on a loaded machine, and no window title tells when.
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import GONE, SAVED, WIN, C, K, P, T, W, task, write  # noqa: E402
from librecad_more import fresh_import  # noqa: E402

base = fresh_import("vscode_make", HERE / "vscode.py")
fx = base.fx
more = fresh_import("apps_more_fixtures", HERE.parents[2] / "fixtures" / "prosoft" / "apps_more" / "make_fixtures.py")

PROJECT, USER, CARD = base.PROJECT, base.USER, base.CARD
LIMITS, LIMITS_L2 = base.LIMITS, base.LIMITS_L2
MORE = "fixtures/prosoft/apps_more/vscode"
START = base.START
START_JSON = {**START, "start_files": [*START["start_files"],
                                       {"src": f"{MORE}/defaults.json", "dest": f"{PROJECT}/defaults.json"}]}
START_WEB = {**START, "start_files": [*START["start_files"],
                                      *({"src": f"{MORE}/web/{n}", "dest": f"{PROJECT}/web/{n}"}
                                        for n in [*more.WEB, "jsconfig.json"])]}
WORKSPACE = f"{PROJECT}/.vscode/settings.json"
START_WS = {**START, "start_files": [*START["start_files"],
                                     {"src": f"{MORE}/workspace_settings.json", "dest": WORKSPACE}]}
START_JSON_WS = {**START_JSON, "start_files": [*START_JSON["start_files"],
                                               {"src": f"{MORE}/workspace_settings.json", "dest": WORKSPACE}]}
TASKS = f"{PROJECT}/.vscode/tasks.json"
SNIPPETS = f"{USER}/snippets/python.json"
KW = {"tags": ["vscode"], "apps": ["vscode"], "knowledge": CARD + (
    " Workspace settings: the Settings editor's Workspace tab (written to .vscode/settings.json); tasks: "
    ".vscode/tasks.json ('Tasks: Configure Task', or a new file in the Explorer); snippets: 'Snippets: "
    "Configure Snippets'; 'Format Document' (Ctrl+Shift+I in the editor) formats the file; F2 renames the "
    "symbol under the cursor in every file.")}



def explorer_rows(names, folders=()):
    """The Explorer's rows: folders first, then files, each sorted without regard to case."""
    order = [*sorted(folders, key=str.lower), *sorted(names, key=str.lower)]
    return {name: 122 + 22 * k for k, name in enumerate(order)}


ROW_START = explorer_rows(fx.PROJECT)
ROW_JSON = explorer_rows([*fx.PROJECT, "defaults.json"])
ROW_JSON_WS = explorer_rows([*fx.PROJECT, "defaults.json"], [".vscode"])
ROW_WEB = explorer_rows(fx.PROJECT, ["web"])
TEST_TASK = {"label": "test", "command": "python -m unittest discover", "type": "shell"}
SNIPPET = {"prefix": "bp", "body": ["breakpoint()"], "description": "Stop in the debugger"}
TRIM = {"files.trimTrailingWhitespace": True}
FORMAT_ON_SAVE = {"editor.formatOnSave": True}


def workspace_checkbox(query):
    """Ctrl+, (the search focused), the setting's id, the Workspace tab, the first result's check box; the
    workspace's settings file (start file ``{}``) written once."""
    return [K("ctrl", ","), WIN("^Settings - ", 60), W(2), T(query), W(3), C(641, 155), W(2), C(596, 232),
            SAVED(WORKSPACE)]


def user_choice_up(query, ups):
    """Ctrl+, (the User tab), the setting's id, its drop-down opened, ``ups`` rows up from the value, Enter."""
    return [K("ctrl", ","), WIN("^Settings - "), W(2), T(query), W(2), C(746, 263), W(0.8), *[P("up")] * ups,
            P("enter"), SAVED(f"{USER}/settings.json")]


def quick_open(name):
    """Ctrl+P, the file's name, Enter: its editor opens."""
    return [C(800, 400), W(0.5), K("ctrl", "p"), W(1.5), T(name), W(3), P("enter"),
            WIN(f"^{Path(name).name.replace('.', '[.]')} - project - code-server$", 60), W(1.5)]


def saved_after_edit(path):
    """Ctrl+S a moment after the typing, then a wait, then the wait on the file: a template or an empty file was
    on disk before the edit, and code-server shows no unsaved mark in the window title (its files save
    themselves after a delay), so no title tells when the save is done."""
    return [W(1.5), K("ctrl", "s"), W(3), SAVED(path)]


def open_in_explorer(rows, name):
    """A click on the file in the Explorer (``rows``: its rows by name) until its editor shows; a second click
    where the Explorer was still filling on a loaded machine (on an open file it changes nothing)."""
    title = WIN(f"^{name.replace('.', '[.]')} - project - code-server$")
    return [C(112, rows[name]), {**title, "seconds": 30}, C(112, rows[name]), {**title, "seconds": 60}, W(1.5)]


def format_and_save(rows, name):
    """The file opened from the Explorer, 'Format Document' from the Command Palette (its key, Ctrl+Shift+I,
    opens Chromium's developer tools when the editor is not focused; without the JSON service, started with the
    first JSON editor once the extensions run, VS Code offers formatters from the Marketplace), saved."""
    return [*open_in_explorer(rows, name), W(3), *base.palette("Format Document"), W(1.5), K("ctrl", "s"),
            SAVED(f"{PROJECT}/{name}")]


def tasks_file(label, command):
    """'File: New File...' (the Explorer's name box: the path is taken from the folder of the item selected
    there, so a click on the Explorer's empty part first), .vscode/tasks.json, the tasks typed on one line,
    saved."""
    line = (f'{{"version": "2.0.0", "tasks": [{{"label": "{label}", "type": "shell", '
            f'"command": "{command}"}}]}}')
    return [C(200, 650), W(0.5), *base.palette("File: New File..."), T(".vscode/tasks.json"), W(1), P("enter"),
            WIN("^tasks[.]json - project - code-server$", 60), W(2), T(line), *saved_after_edit(TASKS)]


def extensions_ready(rows):
    """Until VS Code's extensions run (its languages, the JSON formatter, the TypeScript service): README.md
    opened from the Explorer and 'Markdown: Open Preview' (a command of the built-in Markdown extension, run once
    the extension host is up: seconds after the window shows on a loaded machine) until the preview's window
    title shows; both closed again."""
    return [*open_in_explorer(rows, "README.md"), *base.palette("Markdown: Open Preview"),
            WIN("^\\[Preview\\] README[.]md - ", 60), K("ctrl", "w"), W(0.5), K("ctrl", "w"),
            GONE("README[.]md - project"), W(0.5)]


def python_snippet(name, snippet):
    """'Snippets: Configure Snippets', 'python' (User/snippets/python.json opens with its commented example;
    the languages are listed once the extensions run), the snippet typed on one line before the closing
    brace."""
    body = ", ".join(f'"{line}"' for line in snippet["body"])
    line = (f'"{name}": {{"prefix": "{snippet["prefix"]}", "body": [{body}], '
            f'"description": "{snippet["description"]}"}}')
    return [*extensions_ready(ROW_START), C(800, 400), W(0.5),
            *base.palette("Snippets: Configure Snippets", wait=2), W(1), T("python"), W(2), P("enter"),
            WIN("^python[.]json - project - code-server$", 60), W(2), K("ctrl", "end"), P("up"), P("end"),
            P("enter"), T(line), *saved_after_edit(SNIPPETS)]


def replace_constant(old, new):
    """Ctrl+Shift+H, the search (its results take seconds on a loaded machine: Replace All needs them), the
    replacement, Ctrl+Alt+Enter (Replace All), Enter (its confirmation)."""
    return [C(800, 400), W(0.5), K("ctrl", "shift", "h"), W(1.5), T(old), W(15), C(185, 140), W(0.5), T(new),
            W(1.5), K("ctrl", "alt", "enter"), W(1.5), P("enter"), W(2.5)]


WORKSPACE_ART = {"workspace": WORKSPACE, "settings": f"{USER}/settings.json"}

tasks = [
    task("vscode-workspace-setting", "L1",
         "VS Code is open on the folder 'project'. In this folder's workspace settings (the Settings editor's "
         "Workspace tab, not the user settings), turn on Files: Trim Trailing Whitespace.",
         "vscode_workspace_setting", {"values": TRIM}, START_WS, workspace_checkbox("files.trimTrailingWhitespace"),
         artifacts=WORKSPACE_ART, **KW, **LIMITS),
    task("vscode-test-task", "L1",
         "VS Code is open on the folder 'project'. Create the workspace's task configuration .vscode/tasks.json "
         "with a shell task labelled 'test' that runs 'python -m unittest discover'.",
         "vscode_task", TEST_TASK, START, tasks_file(TEST_TASK["label"], TEST_TASK["command"]),
         artifacts={"tasks": TASKS}, **KW, **LIMITS),
    task("vscode-python-snippet", "L1",
         "VS Code is open on the folder 'project'. Add a user snippet for Python (Snippets: Configure Snippets) "
         "with the prefix 'bp' that inserts 'breakpoint()', described as 'Stop in the debugger'.",
         "vscode_snippet", SNIPPET, START, python_snippet("Breakpoint", SNIPPET),
         artifacts={"snippets": SNIPPETS}, **KW, **LIMITS),
    task("vscode-format-json", "L1",
         "VS Code is open on the folder 'project'. The file defaults.json is one long line: format it with Format "
         "Document (4-space indentation) and save it.",
         "vscode_json_format", {"artifact": "defaults", "source": "apps_more/vscode/defaults.json"}, START_JSON,
         [*extensions_ready(ROW_JSON), *format_and_save(ROW_JSON, "defaults.json")],
         artifacts={"defaults": f"{PROJECT}/defaults.json"}, **KW,
         **LIMITS),
]

RUN_TASK = {"label": "run", "command": "python app.py", "type": "shell"}
CHECK_TASK = {"label": "check", "command": "node --check web/cart.js", "type": "shell"}
TAB_COMPLETION = {"editor.tabCompletion": "on"}
NEW_NAME = "priceExVat"


def rename_symbol(path, line, column, new):
    """The file opened, the cursor put on the symbol (Ctrl+G line:column), F2, the new name, Enter; then
    'File: Save All' (the rename also changed files that are not open). The TypeScript service that renames
    JavaScript starts with the first JavaScript editor: the wait before F2 is its start."""
    return [*quick_open(path), W(10), K("ctrl", "g"), W(1), T(f"{line}:{column}\n"), W(1), P("f2"), W(2.5),
            K("ctrl", "a"), T(new), W(0.5), P("enter"), W(3), *base.palette("File: Save All"), GONE("^\u25cf ")]


def explorer_rename(rows, old, new):
    return [C(112, rows[old]), W(1), P("f2"), W(0.8), K("ctrl", "a"), T(f"{new}\n"), W(2)]


def edit_timeout():
    return [*open_in_explorer(ROW_JSON, "config.py"), K("ctrl", "g"),
            W(1), T("2\n"), W(0.8), P("end"), K("shift", "home"), T("TIMEOUT = 30"), W(0.5),
            K("ctrl", "s"), SAVED(f"{PROJECT}/config.py")]


WEB = {"prices": f"{PROJECT}/web/prices.js", "cart": f"{PROJECT}/web/cart.js"}
REPLACED = {n: f"{PROJECT}/{n}.py" for n in ("app", "config", "utils")}

tasks += [
    task("vscode-workspace-test-setup", "L2",
         "VS Code is open on the folder 'project'. Set the workspace up for testing: in the workspace settings (not "
         "the user settings) turn on Files: Trim Trailing Whitespace, and create the workspace's .vscode/tasks.json "
         "with a shell task labelled 'test' that runs 'python -m unittest discover'.",
         "pipeline", {"steps": [{"template": "vscode_workspace_setting", "values": TRIM},
                                {"template": "vscode_task", **TEST_TASK}]}, START_WS,
         [*workspace_checkbox("files.trimTrailingWhitespace"), K("ctrl", "w"), W(1),
          *tasks_file(TEST_TASK["label"], TEST_TASK["command"])],
         artifacts={**WORKSPACE_ART, "tasks": TASKS}, **KW, **LIMITS_L2),
    task("vscode-json-style", "L2",
         "VS Code is open on the folder 'project'. Make the JSON style stick: format defaults.json with Format "
         "Document (4-space indentation) and save it, and turn on Editor: Format On Save in this folder's workspace "
         "settings (not the user settings).",
         "pipeline", {"steps": [
             {"template": "vscode_json_format", "artifact": "defaults", "source": "apps_more/vscode/defaults.json"},
             {"template": "vscode_workspace_setting", "values": FORMAT_ON_SAVE}]}, START_JSON_WS,
         [*extensions_ready(ROW_JSON_WS), *format_and_save(ROW_JSON_WS, "defaults.json"),
          *workspace_checkbox("editor.formatOnSave")],
         artifacts={"defaults": f"{PROJECT}/defaults.json", **WORKSPACE_ART}, **KW, **LIMITS_L2),
    task("vscode-js-rename-and-check", "L2",
         f"VS Code is open on the folder 'project'. In web/prices.js, rename the function netPrice to {NEW_NAME} "
         f"with Rename Symbol (F2), so that web/cart.js follows, save both files, and add a workspace "
         f".vscode/tasks.json "
         f"with a shell task labelled 'check' that runs 'node --check web/cart.js'.",
         "pipeline", {"steps": [
             {"template": "vscode_replace", "artifacts": ["prices", "cart"], "old": "netPrice", "new": NEW_NAME,
              "counts": {"prices": 1, "cart": 2},
              "sources": {"prices": "apps_more/vscode/web/prices.js", "cart": "apps_more/vscode/web/cart.js"}},
             {"template": "vscode_task", **CHECK_TASK}]}, START_WEB,
         [*extensions_ready(ROW_WEB), *rename_symbol("web/prices.js", 1, 17, NEW_NAME), SAVED(WEB["prices"]),
          SAVED(WEB["cart"]), *tasks_file(CHECK_TASK["label"], CHECK_TASK["command"])],
         artifacts={**WEB, "tasks": TASKS}, **KW, **LIMITS_L2),
    task("vscode-snippet-setup", "L2",
         "VS Code is open on the folder 'project'. Add a user snippet for Python with the prefix 'bp' that inserts "
         "'breakpoint()', described as 'Stop in the debugger', and set the user setting Editor: Tab Completion to "
         "'on' so that a prefix followed by Tab inserts it.",
         "pipeline", {"steps": [{"template": "vscode_snippet", **SNIPPET},
                                {"template": "vscode_setting", "artifact": "settings", "values": TAB_COMPLETION,
                                 "keeps": base.KEEP}]}, START,
         [*python_snippet("Breakpoint", SNIPPET), *user_choice_up("editor.tabCompletion", 1)],
         artifacts={"snippets": SNIPPETS, **base.SETTINGS}, **KW, **LIMITS_L2),
    task("vscode-refactor-and-run-task", "L2",
         "VS Code is open on the folder 'project'. Rename the constant MAX_RETRIES to MAX_ATTEMPTS everywhere in the "
         "project (Replace in Files, files saved), and add a workspace .vscode/tasks.json with a shell task labelled "
         "'run' "
         "that runs 'python app.py'.",
         "pipeline", {"steps": [
             {"template": "vscode_replace", "artifacts": ["app", "config", "utils"], "old": "MAX_RETRIES",
              "new": "MAX_ATTEMPTS", "counts": {"app": 2, "config": 1, "utils": 2},
              "sources": {n: f"vscode/project/{n}.py" for n in ("app", "config", "utils")}},
             {"template": "vscode_task", **RUN_TASK}]}, START,
         [*replace_constant("MAX_RETRIES", "MAX_ATTEMPTS"), *tasks_file(RUN_TASK["label"], RUN_TASK["command"])],
         artifacts={**REPLACED, "tasks": TASKS}, **KW, **LIMITS_L2),
    task("vscode-release-prep", "L2",
         "VS Code is open on the folder 'project'. Prepare the release: in config.py change the timeout from 10 to "
         "30 (the line 'TIMEOUT = 10' becomes 'TIMEOUT = 30'), rename notes.txt to roadmap.md in the Explorer, and "
         "format defaults.json with Format Document (4-space indentation); save every file.",
         "pipeline", {"steps": [
             {"template": "vscode_file", "artifact": "config", "lines": ["MAX_RETRIES = 3", "TIMEOUT = 30"]},
             {"template": "vscode_file", "artifact": "renamed", "lines": fx.PROJECT["notes.txt"].splitlines(),
              "absent": ["old"]},
             {"template": "vscode_json_format", "artifact": "defaults", "source": "apps_more/vscode/defaults.json"}]},
         START_JSON,
         [*extensions_ready(ROW_JSON), *edit_timeout(), *explorer_rename(ROW_JSON, "notes.txt", "roadmap.md"),
          *format_and_save(ROW_JSON, "defaults.json")],
         artifacts={"config": f"{PROJECT}/config.py", "renamed": f"{PROJECT}/roadmap.md", "old": f"{PROJECT}/notes.txt",
                    "defaults": f"{PROJECT}/defaults.json"}, **KW, **LIMITS_L2),
]

if __name__ == "__main__":
    write("vscode_more", tasks)
