"""What every ProSoft task generator shares: the task builder and the action shorthands.

A generator (``suites/prosoft/make/<group>.py``, or ``make_tasks.py`` for the first office tasks) builds its
tasks with :func:`task` and writes ``suites/prosoft/tasks/<group>.json`` with :func:`write`. Run one with
``python -m suites.prosoft.make.<group>`` from the repository root (or ``python suites/prosoft/make/<group>.py``).
"""
import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tasks"
K = lambda *keys: {"type": "hotkey", "keys": list(keys)}  # noqa: E731
P = lambda key: {"type": "press", "key": key}  # noqa: E731
T = lambda text: {"type": "type", "text": text}  # noqa: E731
W = lambda s: {"type": "wait", "seconds": s}  # noqa: E731
C = lambda x, y: {"type": "click", "target": {"x": x, "y": y}}  # noqa: E731
SAVE = [K("ctrl", "s"), W(3)]

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
    return data


def write(group, tasks):
    """Write ``tasks/<group>.json`` and print the count per level."""
    from collections import Counter

    ids = [t["id"] for t in tasks]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    assert not dup, f"duplicate task ids in {group}: {dup}"
    (OUT / f"{group}.json").write_text(json.dumps({"tasks": tasks}, indent=1) + "\n")
    print(group, dict(sorted(Counter(t["level"] for t in tasks).items())))
