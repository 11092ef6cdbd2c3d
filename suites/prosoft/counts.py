"""The suite's task counts per paper program and level, as the README's program table shows them.

    python3 -m suites.prosoft.counts        # prints the table (tests/prosoft/test_counts.py keeps the README's equal)

A row is one of ProSoftArena's programs (or an extra of the suite) with its stand-in apps. Its L1, L2 and L4
columns count the single-program tasks of each app (``a + b`` when the row has two apps); its L3 column counts
the pipelines that use any of the row's apps. The last row totals each level over all tasks, beside the paper's
figures.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from pytest_cua import Task
from pytest_cua.tasks.task import load_task_file

from .domains import PROGRAMS, apps_of

TASKS = Path(__file__).resolve().parent / "tasks"
PAPER = {"L1": 252, "L2": 164, "L3": 20, "L4": 20}  # ProSoftArena (CVPR 2026): 456 tasks
LEVELS = ("L1", "L2", "L3", "L4")
MIN_PER_PROGRAM = {"L1": 12, "L2": 8}  # the least each program of the paper gets


@dataclass(frozen=True)
class Row:
    paper: str  # the paper's program, or "(extra)"
    stand_in: str  # as the README shows it, the app markers in backticks
    apps: tuple[str, ...]


ROWS = (
    Row("Excel", "LibreOffice Calc (`calc`)", ("calc",)),
    Row("(extra)", "LibreOffice Writer (`writer`)", ("writer",)),
    Row("(extra)", "LibreOffice Impress (`impress`)", ("impress",)),
    Row("RGui", "R (`r`)", ("r",)),
    Row("NVivo", "Taguette 1.5.2 in Chromium (`taguette`)", ("taguette",)),
    Row("Illustrator", "Inkscape (`inkscape`)", ("inkscape",)),
    Row("Photoshop", "GIMP 2.10 (`gimp`)", ("gimp",)),
    Row("ImageJ", "ImageJ (`imagej`)", ("imagej",)),
    Row("ChemDraw", "BKChem (`bkchem`); Avogadro for 3D (`avogadro`)", ("bkchem", "avogadro")),
    Row("ArcGIS", "QGIS (`qgis`)", ("qgis",)),
    Row("SolidWorks", "FreeCAD Part Design (`freecad`)", ("freecad",)),
    Row("ANSYS", "FreeCAD FEM with CalculiX (`fem`)", ("fem",)),
    Row("Multisim", "KiCad's simulator and ngspice (`kicad`, `ngspice`)", ("kicad", "ngspice")),
    Row("AutoCAD", "LibreCAD (`librecad`)", ("librecad",)),
    Row("VSCode", "VS Code through code-server 4.100.3 (`vscode`)", ("vscode",)),
)


def load_tasks(folder: Path = TASKS) -> list[Task]:
    from .test_prosoft import ProSoftSuite

    return [t for path in sorted(folder.glob("*.json"))
            for t in load_task_file(path, suite="prosoft", extension_fields=ProSoftSuite.task_fields)]


def per_app(tasks: Iterable[Task]) -> dict[str, Counter[str]]:
    """For each app: its single-program tasks per level (L1, L2, L4), and the pipelines (L3) that use it."""
    out: dict[str, Counter[str]] = {}
    for task in tasks:
        apps = apps_of(task)
        for app in apps:
            if task.level == "L3" or len(apps) == 1:
                out.setdefault(app, Counter())[str(task.level)] += 1
    return out


def row_counts(row: Row, apps: dict[str, Counter[str]], tasks: Sequence[Task]) -> dict[str, str]:
    cells = {}
    for level in ("L1", "L2", "L4"):
        numbers = [apps.get(app, Counter())[level] for app in row.apps]
        cells[level] = "" if not any(numbers) else " + ".join(str(n) for n in numbers)
    l3 = sum(1 for t in tasks if t.level == "L3" and set(apps_of(t)) & set(row.apps))
    cells["L3"] = str(l3) if l3 else ""
    return cells


def short_programs(tasks: Sequence[Task]) -> list[str]:
    """The rows short of ``MIN_PER_PROGRAM`` (their apps together), as "program: L1 n, L2 m"."""
    apps = per_app(tasks)
    short = []
    for row in ROWS:
        got = {level: sum(apps.get(app, Counter())[level] for app in row.apps) for level in MIN_PER_PROGRAM}
        if any(got[level] < least for level, least in MIN_PER_PROGRAM.items()):
            short.append(f"{row.paper if row.paper != '(extra)' else row.stand_in}: L1 {got['L1']}, L2 {got['L2']}")
    return short


def table(tasks: Sequence[Task]) -> str:
    """The README's program table (markdown)."""
    apps = per_app(tasks)
    lines = ["| paper program | stand-in (app marker) | domain | L1 | L2 | L3 (pipelines using it) | L4 |",
             "|---|---|---|---|---|---|---|"]
    for row in ROWS:
        cells = row_counts(row, apps, tasks)
        domain = PROGRAMS[row.apps[0]].domain.replace("_", " ")
        lines.append(f"| {row.paper} | {row.stand_in} | {domain} | {cells['L1']} | {cells['L2']} | {cells['L3']} "
                     f"| {cells['L4']} |")
    levels = Counter(str(t.level) for t in tasks)
    lines.append("| **all** (paper) | | | " + " | ".join(f"**{levels[lv]}** ({PAPER[lv]})" for lv in LEVELS) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] = ()) -> int:
    tasks = load_tasks()
    print(table(tasks))
    print(f"\n{len(tasks)} tasks (the paper: {sum(PAPER.values())})")
    short = short_programs(tasks)
    print("short of 12 L1 / 8 L2: " + ("; ".join(short) if short else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
