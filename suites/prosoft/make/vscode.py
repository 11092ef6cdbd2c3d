"""Writes tasks/vscode.json: VS Code tasks (code-server 4.100, VS Code 1.100, in a Chromium app window), L1 and L2.
Run ``python suites/prosoft/make/vscode.py`` from the repository root.

code-server serves VS Code on 127.0.0.1:8080 inside the container (``--auth none``: loopback only, no network
in the container) with its user-data dir /root/.local/share/code-server (the start ``settings.json`` there keeps
the welcome page, workspace trust and the extension gallery, which cannot be reached, away) and the workspace
/root/work/project (``fixtures/prosoft/vscode``, ``make_fixtures.py`` there). The evaluator
(``checks/vscode.py``) reads the files VS Code wrote: User/settings.json, User/keybindings.json, the workspace's
files, the installed extension's package.json.

Demonstrations use VS Code's own keyboard surface: the Command Palette (F1: Ctrl+Shift+P is taken by some
browsers), Ctrl+, (Settings editor, its search focused), Ctrl+K Ctrl+S (Keyboard Shortcuts), Ctrl+K Ctrl+T
(Color Theme), Ctrl+Shift+H (Replace in Files: its ripgrep search takes seconds on a loaded machine and Replace All
needs its results, hence the long wait there), F2 in the Explorer (rename), Ctrl+G (Go to Line), Ctrl+S. A
first keystroke is sent only once the editor or dialog it goes to has shown (VS Code drops keys typed into a
widget that is still being built).
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import C, K, P, SAVED, T, W, WIN, fixtures_module, task, write  # noqa: E402

fx = fixtures_module("vscode")

FIX = "fixtures/prosoft/vscode"
HOME = "/root/.local/share/code-server"
USER = f"{HOME}/User"
EXTENSIONS = f"{HOME}/extensions"
PROJECT = "/root/work/project"
LIMITS = {"max_steps": 60, "time_limit_s": 600}
LIMITS_L2 = {"max_steps": 100, "time_limit_s": 900}
CHROMIUM = ("chromium --no-sandbox --test-type --disable-gpu --disable-dev-shm-usage --no-first-run "
            "--no-default-browser-check --password-store=basic --force-renderer-accessibility "
            "--user-data-dir=/root/.config/cua-chromium --window-position=0,0 --window-size=1280,800")
LAUNCH = (f"code-server --auth none --bind-addr 127.0.0.1:8080 --disable-telemetry --disable-update-check "
          f"--disable-workspace-trust --disable-getting-started-override --user-data-dir {HOME} "
          f"--extensions-dir {EXTENSIONS} {PROJECT} > /tmp/code-server.log 2>&1 & "
          "for i in $(seq 1200); do grep -q 'HTTP server listening' /tmp/code-server.log && break; sleep 0.1; done; "
          f"exec {CHROMIUM} --app=http://127.0.0.1:8080/?folder={PROJECT}")
START_FILES = ([{"src": f"{FIX}/settings.json", "dest": f"{USER}/settings.json"}] +
               [{"src": f"{FIX}/project/{name}", "dest": f"{PROJECT}/{name}"} for name in fx.PROJECT] +
               [{"src": f"{FIX}/hello-snippets-0.1.0.vsix", "dest": "/root/work/hello-snippets-0.1.0.vsix"}])
START = {"start_files": START_FILES, "start_command": ["sh", "-c", LAUNCH], "window": "^project - code-server$",
         "window_timeout_s": 180}
SETTINGS = {"settings": f"{USER}/settings.json"}
KEEP = {k: fx.SETTINGS[k] for k in ("workbench.startupEditor", "editor.fontSize", "telemetry.telemetryLevel")}
EXPLORER_ROW = {name: 122 + 22 * k for k, name in enumerate(sorted(fx.PROJECT, key=str.lower))}


#: a new file's text typed, then saved: the Explorer writes the file empty when it creates it, so the wait for the
#: saved file can end on that empty file before Ctrl+S reaches the disk (a replay under load copied it out empty);
#: code-server's window title does not mark an unsaved editor, so a pause lets the save land first
def type_and_save_new(name, text):
    return [T(text), W(1), K("ctrl", "s"), W(2.5), SAVED(f"{PROJECT}/{name}")]


def palette(command, wait=1.5):
    """F1, the command typed, Enter on the first match."""
    return [K("f1"), W(1.2), T(command), W(wait), P("enter"), W(1.5)]


def setting_text(query, value):
    """Ctrl+, (the search is focused), the setting's id, its text box (the first result's), the value, Tab."""
    return [K("ctrl", ","), WIN("^Settings - "), W(2), T(query), W(2), C(686, 282), W(0.5), K("ctrl", "a"),
            T(str(value)), P("tab"), W(1.5)]


def setting_choice(query, downs):
    """The same for a drop-down setting: open it, ``downs`` rows down from the current value, Enter."""
    return [K("ctrl", ","), WIN("^Settings - "), W(2), T(query), W(2), C(746, 263), W(0.8),
            *[P("down")] * downs, P("enter"), W(1.5)]


def color_theme(name):
    """Ctrl+K Ctrl+T, the theme's name, Enter. The picker lists the built-in themes only once VS Code's
    extension host has started ("Activating Extensions..." in the status bar, seconds on a loaded machine);
    before that Enter lands on "Browse Additional Color Themes..." (the gallery, offline here): Escape closes
    it and the second try picks the theme (a second pick of the chosen theme changes nothing)."""
    once = [K("ctrl", "k"), W(0.3), K("ctrl", "t"), W(2), T(name), W(1.5), P("enter"), W(2)]
    return [C(800, 400), W(3), *once, P("escape"), W(6), C(800, 400), W(0.5), *once]


def keybinding(command, keys):
    """Ctrl+K Ctrl+S, the command searched, a double click on its row, the keys, Enter. The editor creates an
    empty keybindings.json when it opens, so the end is a wait for the entry, not for the file."""
    return [C(800, 400), W(0.5), K("ctrl", "k"), W(0.3), K("ctrl", "s"), WIN("^Keyboard Shortcuts - "), W(2.5),
            C(780, 114), W(0.5), T(command), W(2), {"type": "double_click", "target": {"x": 550, "y": 192}},
            W(1.5), K(*keys), W(2.5), P("enter"), W(3), C(800, 600)]  # (the click: a last wait stays a wait)


def open_file(name):
    """A click on the file in the Explorer (the files of the start workspace, by name)."""
    return [C(112, EXPLORER_ROW[name]), WIN(f"^{name.replace('.', '[.]')} - project - code-server$"), W(1.5)]


CARD = ("VS Code (code-server) in the browser window: F1 opens the Command Palette; Ctrl+, the Settings editor "
        "(its User tab writes ~/.local/share/code-server/User/settings.json); Ctrl+K Ctrl+S the Keyboard "
        "Shortcuts editor (a double click on a command records a new key, written to keybindings.json); Ctrl+K "
        "Ctrl+T the color theme; Ctrl+Shift+H replaces across the workspace (Ctrl+Alt+Enter replaces all); "
        "'Extensions: Install from VSIX...' installs a .vsix file; F2 renames the file selected in the Explorer; "
        "Ctrl+S saves.")

tasks = [
    task("vscode-tab-size", "L1",
         "VS Code is open on the folder 'project'. In the user settings (the Settings editor), set the editor's tab "
         "size (Editor: Tab Size) to 2.",
         "vscode_setting", {"artifact": "settings", "values": {"editor.tabSize": 2}, "keeps": KEEP}, START,
         setting_text("editor.tabSize", 2), tags=["vscode"], apps=["vscode"], artifacts=SETTINGS, knowledge=CARD,
         **LIMITS),
    task("vscode-auto-save", "L1",
         "VS Code is open on the folder 'project'. Change the user setting Files: Auto Save so that files are "
         "saved when the editor loses focus (onFocusChange).",
         "vscode_setting", {"artifact": "settings", "values": {"files.autoSave": "onFocusChange"}, "keeps": KEEP},
         START, setting_choice("files.autoSave", 1), tags=["vscode"], apps=["vscode"], artifacts=SETTINGS,
         knowledge=CARD, **LIMITS),
    task("vscode-color-theme", "L1",
         "VS Code is open on the folder 'project'. Switch the color theme to 'Solarized Light'.",
         "vscode_setting", {"artifact": "settings", "values": {"workbench.colorTheme": "Solarized Light"},
                            "keeps": KEEP}, START,
         color_theme("Solarized Light"),
         tags=["vscode"], apps=["vscode"], artifacts=SETTINGS, knowledge=CARD, **LIMITS),
    task("vscode-keybinding", "L1",
         "VS Code is open on the folder 'project'. Bind the command 'Transform to Lowercase' "
         "(editor.action.transformToLowercase) to the key Ctrl+Alt+L in the Keyboard Shortcuts editor.",
         "vscode_keybinding", {"artifact": "keybindings", "bindings": [
             {"key": "ctrl+alt+l", "command": "editor.action.transformToLowercase"}]}, START,
         keybinding("transformToLowercase", ("ctrl", "alt", "l")),
         tags=["vscode"], apps=["vscode"], artifacts={"keybindings": f"{USER}/keybindings.json"}, knowledge=CARD,
         **LIMITS),
    task("vscode-install-vsix", "L1",
         "VS Code is open on the folder 'project'. Install the extension packed in /root/work/hello-snippets-0.1.0.vsix "
         "(Extensions: Install from VSIX...).",
         "vscode_extension", {"artifact": "manifest", "name": "hello-snippets", "publisher": "pytest-cua",
                              "version": "0.1.0"}, START,
         # the file dialog fills in its start folder once it has read it (the path is typed after that) and
         # lists the typed path's folder; a click on the file there installs it
         [C(800, 400), W(3), *palette("Extensions: Install from VSIX"), W(3), K("ctrl", "a"),
          T("/root/work/hello-snippets-0.1.0.vsix"), W(3), C(459, 140),
          SAVED(f"{EXTENSIONS}/pytest-cua.hello-snippets-0.1.0/package.json", 60)],
         tags=["vscode"], apps=["vscode"],
         artifacts={"manifest": f"{EXTENSIONS}/pytest-cua.hello-snippets-0.1.0/package.json"}, knowledge=CARD,
         **LIMITS),
    task("vscode-rename-file", "L1",
         "VS Code is open on the folder 'project'. Rename the file notes.txt to roadmap.md in the Explorer.",
         "vscode_file", {"artifact": "renamed", "lines": fx.PROJECT["notes.txt"].splitlines(), "absent": ["old"]},
         START,
         [C(112, EXPLORER_ROW["notes.txt"]), W(1), P("f2"), W(0.8), K("ctrl", "a"), T("roadmap.md\n"), W(2)],
         tags=["vscode"], apps=["vscode"], artifacts={"renamed": f"{PROJECT}/roadmap.md", "old": f"{PROJECT}/notes.txt"},
         knowledge=CARD, **LIMITS),
    task("vscode-new-file", "L1",
         "VS Code is open on the folder 'project'. Create a file CHANGELOG.md in the project holding the two lines "
         "'# Changelog' and 'Version 0.2 makes the retries configurable.', and save it.",
         "vscode_file", {"artifact": "changelog",
                         "lines": ["# Changelog", "Version 0.2 makes the retries configurable."]}, START,
         [C(800, 400), W(0.5), *palette("File: New File..."), T("CHANGELOG.md"), W(1), P("enter"),
          WIN("^CHANGELOG[.]md - project - code-server$"), W(1.5),
          *type_and_save_new("CHANGELOG.md", "# Changelog\nVersion 0.2 makes the retries configurable.\n")],
         tags=["vscode"], apps=["vscode"], artifacts={"changelog": f"{PROJECT}/CHANGELOG.md"}, knowledge=CARD,
         **LIMITS),
    task("vscode-edit-line", "L1",
         "VS Code is open on the folder 'project'. In config.py, change the timeout from 10 to 30 (the line "
         "'TIMEOUT = 10' becomes 'TIMEOUT = 30') and save the file.",
         "vscode_file", {"artifact": "config", "lines": ["MAX_RETRIES = 3", "TIMEOUT = 30"]}, START,
         [*open_file("config.py"), K("ctrl", "g"), W(1), T("2\n"), W(0.8), P("end"), K("shift", "home"),
          T("TIMEOUT = 30"), W(0.5), K("ctrl", "s"), SAVED(f"{PROJECT}/config.py")],
         tags=["vscode"], apps=["vscode"], artifacts={"config": f"{PROJECT}/config.py"}, knowledge=CARD, **LIMITS),
    task("vscode-replace-in-files", "L1",
         "VS Code is open on the folder 'project'. Rename the constant MAX_RETRIES to MAX_ATTEMPTS everywhere in the "
         "project with Replace in Files, and make sure the files are saved.",
         "vscode_replace", {"artifacts": ["app", "config", "utils"], "old": "MAX_RETRIES", "new": "MAX_ATTEMPTS",
                            "counts": {"app": 2, "config": 1, "utils": 2},
                            "sources": {"app": "vscode/project/app.py", "config": "vscode/project/config.py",
                                        "utils": "vscode/project/utils.py"}}, START,
         [C(800, 400), W(0.5), K("ctrl", "shift", "h"), W(1.5), T("MAX_RETRIES"), W(8), C(185, 140), W(0.5),
          T("MAX_ATTEMPTS"), W(1.5), K("ctrl", "alt", "enter"), W(1.5), P("enter"), W(2.5)],
         tags=["vscode"], apps=["vscode"],
         artifacts={n: f"{PROJECT}/{n}.py" for n in ("app", "config", "utils")}, knowledge=CARD, **LIMITS),
    task("vscode-python-style", "L2",
         "VS Code is open on the folder 'project'. Set up the editor for this team's style: in the user settings, "
         "set Editor: Tab Size to 2 and the color theme to 'Solarized Light', and bind 'Transform to Lowercase' "
         "to Ctrl+Alt+L.",
         "pipeline", {"steps": [
             {"template": "vscode_setting", "artifact": "settings",
              "values": {"editor.tabSize": 2, "workbench.colorTheme": "Solarized Light"}, "keeps": KEEP},
             {"template": "vscode_keybinding", "artifact": "keybindings", "bindings": [
                 {"key": "ctrl+alt+l", "command": "editor.action.transformToLowercase"}]}]}, START,
         [*setting_text("editor.tabSize", 2), *color_theme("Solarized Light"),
          *keybinding("transformToLowercase", ("ctrl", "alt", "l"))],
         tags=["vscode"], apps=["vscode"], artifacts={**SETTINGS, "keybindings": f"{USER}/keybindings.json"},
         knowledge=CARD, **LIMITS_L2),
    task("vscode-rename-constant-and-log", "L2",
         "VS Code is open on the folder 'project'. Rename the constant MAX_RETRIES to MAX_ATTEMPTS in every file of "
         "the project, then create CHANGELOG.md holding the two lines '# Changelog' and 'Version 0.2 makes the "
         "retries configurable.', and save everything.",
         "pipeline", {"steps": [
             {"template": "vscode_replace", "artifacts": ["app", "config", "utils"], "old": "MAX_RETRIES",
              "new": "MAX_ATTEMPTS", "counts": {"app": 2, "config": 1, "utils": 2}},
             {"template": "vscode_file", "artifact": "changelog",
              "lines": ["# Changelog", "Version 0.2 makes the retries configurable."]}]}, START,
         [C(800, 400), W(0.5), K("ctrl", "shift", "h"), W(1.5), T("MAX_RETRIES"), W(8), C(185, 140), W(0.5),
          T("MAX_ATTEMPTS"), W(1.5), K("ctrl", "alt", "enter"), W(1.5), P("enter"), W(2.5),
          *palette("File: New File..."), T("CHANGELOG.md"), W(1), P("enter"),
          WIN("^CHANGELOG[.]md - project - code-server$"), W(1.5),
          *type_and_save_new("CHANGELOG.md", "# Changelog\nVersion 0.2 makes the retries configurable.\n")],
         tags=["vscode"], apps=["vscode"],
         artifacts={**{n: f"{PROJECT}/{n}.py" for n in ("app", "config", "utils")},
                    "changelog": f"{PROJECT}/CHANGELOG.md"}, knowledge=CARD, **LIMITS_L2),
]

if __name__ == "__main__":
    assert json.dumps(tasks)
    write("vscode", tasks)
