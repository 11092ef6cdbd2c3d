"""What every ProSoft task generator shares: the task builder and the action shorthands.

A generator (``suites/prosoft/make/<group>.py``, or ``make_tasks.py`` for the first office tasks) builds its
tasks with :func:`task` and writes ``suites/prosoft/tasks/<group>.json`` with :func:`write`. Run one with
``python -m suites.prosoft.make.<group>`` from the repository root (or ``python suites/prosoft/make/<group>.py``).
"""
import importlib.util
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tasks"
FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "prosoft"


def fixtures_module(folder):
    """``fixtures/prosoft/<folder>/make_fixtures.py`` as a module of its own name (``prosoft_fixtures_<folder>``),
    loaded once: several fixture folders have a ``make_fixtures.py``, and under one shared name the first one a
    process imported would stand for all the others."""
    name = "prosoft_fixtures_" + folder.replace("/", "_")
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, FIXTURES / folder / "make_fixtures.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    return sys.modules[name]
K = lambda *keys: {"type": "hotkey", "keys": list(keys)}  # noqa: E731
P = lambda key: {"type": "press", "key": key}  # noqa: E731
T = lambda text: {"type": "type", "text": text}  # noqa: E731
W = lambda s: {"type": "wait", "seconds": s}  # noqa: E731
# wait until a window whose title matches ``pattern`` shows (a dialog a key opens), at most ``s`` seconds
WIN = lambda pattern, s=30: {"type": "wait", "seconds": s, "window": pattern}  # noqa: E731
# wait until no window whose title matches shows (a dialog closed), at most ``s`` seconds
GONE = lambda pattern, s=30: {"type": "wait", "seconds": s, "window_gone": pattern}  # noqa: E731
# wait until the file at ``path`` was written since the task started (a save or an export), at most ``s`` seconds
SAVED = lambda path, s=30: {"type": "wait", "seconds": s, "file": path}  # noqa: E731
C = lambda x, y: {"type": "click", "target": {"x": x, "y": y}}  # noqa: E731
SAVE = [K("ctrl", "s"), W(3)]
# Calc and Writer: a click into the sheet or page before the first key (the window has the focus, the document
# not always: keys were lost without)
CLICK_DOC = [C(640, 600), W(1)]

# the first office tasks' start files and programs (make_tasks.py and make/office.py start from them)
CALC_START = {"start_files": [{"src": "fixtures/prosoft/budget.xlsx", "dest": "/root/work/budget.xlsx"}],
              "start_command": ["soffice", "--norestore", "--calc", "/root/work/budget.xlsx"],
              "window": "budget\\.xlsx", "window_timeout_s": 180,
              "artifacts": {"workbook": "/root/work/budget.xlsx"}}
WRITER_START = {"start_files": [{"src": "fixtures/prosoft/report.docx", "dest": "/root/work/report.docx"}],
                "start_command": ["soffice", "--norestore", "--writer", "/root/work/report.docx"],
                "window": "report\\.docx", "window_timeout_s": 180,
                "artifacts": {"document": "/root/work/report.docx"}}
R_CMD = ["xterm", "-T", "R console", "-geometry", "140x40+0+0", "-e", "R", "--quiet", "--no-save"]
R_START = {"start_files": [{"src": "fixtures/prosoft/sales.csv", "dest": "/root/work/sales.csv"}],
           "start_command": R_CMD, "window": "^R console$", "window_timeout_s": 60}
INK_START = {"start_files": [{"src": "fixtures/prosoft/drawing.svg", "dest": "/root/work/drawing.svg"}],
             "start_command": ["inkscape", "/root/work/drawing.svg"], "window": "drawing\\.svg",
             "window_timeout_s": 240, "artifacts": {"drawing": "/root/work/drawing.svg"}}
LOAD = 'd <- read.csv("/root/work/sales.csv")\n'

# each becomes an app_<name> marker (a task's "apps" default to the tags named here)
APPS = ("calc", "writer", "impress", "r", "inkscape", "gimp", "qgis", "freecad", "kicad", "imagej", "avogadro")
DIFFICULTY = {"L1": "easy", "L2": "medium", "L3": "hard", "L4": "hard"}


def task(id, level, instruction, template, truth, start, demo, difficulty=None, tags=(), artifacts=None, apps=None,
         knowledge=None, max_steps=60, time_limit_s=900, **extra):
    """One task as the suite's JSON holds it. ``knowledge``: the task's knowledge card (formulas, conventions,
    menu paths), given to the agent under ``--demos``."""
    data = {"id": id, "level": level, "difficulty": difficulty or DIFFICULTY[level],
            "template": template, "instruction": instruction, "tags": list(tags),
            "apps": list(apps) if apps is not None else [t for t in tags if t in APPS],
            "ground_truth": truth, "demonstration": {"actions": demo},
            "limits": {"max_steps": max_steps, "time_limit_s": time_limit_s}}
    if knowledge:
        data["knowledge"] = knowledge
    data.update(json.loads(json.dumps(start)))
    if artifacts:
        data["artifacts"] = {**data.get("artifacts", {}), **artifacts}
    data.update(extra)
    data["demonstration"]["actions"] = _closing_waits_on_files(demo, data.get("artifacts") or {})
    return data


def _closing_waits_on_files(demo, artifacts):
    """A demonstration ends by saving: its closing fixed waits (the time a save took on a slow day) become waits
    on the files it saves, each until it was written since the task started, so a replay ends as soon as the
    last save lands and still waits for it on a loaded machine. The files it saves are the artifacts whose path
    it types (an export, a Save As) and, when it ends with Ctrl+S (or types none), every artifact; so the
    source of an export, checked unchanged and never written, is not waited for."""
    closing = 0
    while closing < len(demo) and demo[-1 - closing]["type"] == "wait" and set(demo[-1 - closing]) == {
            "type", "seconds"}:
        closing += 1
    if not closing or not artifacts:
        return list(demo)
    typed = "".join(a.get("text", "") for a in demo if a["type"] == "type")
    saved = [path for path in artifacts.values() if path in typed]
    if not saved or demo[len(demo) - closing - 1] == K("ctrl", "s"):
        saved = list(artifacts.values())
    return [*demo[:len(demo) - closing], *(SAVED(path) for path in saved)]


def write(group, tasks):
    """Write ``tasks/<group>.json`` and print the count per level."""
    from collections import Counter

    ids = [t["id"] for t in tasks]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    assert not dup, f"duplicate task ids in {group}: {dup}"
    (OUT / f"{group}.json").write_text(json.dumps({"tasks": tasks}, indent=1) + "\n")
    print(group, dict(sorted(Counter(t["level"] for t in tasks).items())))
