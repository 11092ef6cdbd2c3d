"""ProSoftArena's domains and programs: which paper program each app of the suite stands in for, and the domain
it belongs to. The one table the suite's ``domain_<name>`` markers come from.

A task's ``apps`` (also its ``app_<name>`` markers) name the programs it uses; its domains are theirs, so a
pipeline across domains carries each domain's marker (``-m domain_engineering``, ``-m "domain_design and L3"``).
An app missing here is a collection error of its task file naming the app (``check_apps``): a task is never
silently left without its domain. A new program of the suite gets a row here.

The grouping follows the issue's reading of ProSoftArena (CVPR 2026): business (Excel), social sciences (NVivo,
RGui), engineering (AutoCAD, SolidWorks, ANSYS, Multisim, VSCode), natural sciences (ImageJ, ChemDraw, ArcGIS),
design (Photoshop, Illustrator). The paper's abstract speaks of 6 disciplines and 20 subfields; its own table of
programs by discipline could not be found here, so this five-domain grouping is the issue's, not checked
against the paper's figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from pytest_cua import Task, TaskFileError

DOMAINS = ("business", "social_sciences", "engineering", "natural_sciences", "design")
MARKER_PREFIX = "domain_"


@dataclass(frozen=True)
class Program:
    """One app of the suite: the name tasks use in ``apps``, the program as shown, the ProSoftArena program it
    stands in for ("" for an extra the paper does not have) and its domain (one of ``DOMAINS``)."""

    app: str
    name: str
    paper: str
    domain: str


_PROGRAMS = (
    Program("calc", "LibreOffice Calc", "Excel", "business"),
    Program("writer", "LibreOffice Writer", "", "business"),
    Program("impress", "LibreOffice Impress", "", "business"),
    Program("taguette", "Taguette", "NVivo", "social_sciences"),
    Program("r", "R", "RGui", "social_sciences"),
    Program("librecad", "LibreCAD", "AutoCAD", "engineering"),
    Program("freecad", "FreeCAD (Part Design)", "SolidWorks", "engineering"),
    Program("fem", "FreeCAD FEM workbench + CalculiX", "ANSYS", "engineering"),
    Program("freecad_fem", "FreeCAD FEM workbench + CalculiX", "ANSYS", "engineering"),
    Program("kicad", "KiCad", "Multisim", "engineering"),
    Program("ngspice", "KiCad's simulator (ngspice)", "Multisim", "engineering"),
    Program("vscode", "VS Code (code-server)", "VSCode", "engineering"),
    Program("code-server", "VS Code (code-server)", "VSCode", "engineering"),
    Program("code_server", "VS Code (code-server)", "VSCode", "engineering"),
    Program("imagej", "ImageJ", "ImageJ", "natural_sciences"),
    Program("bkchem", "BKChem", "ChemDraw", "natural_sciences"),
    Program("chemtool", "Chemtool", "ChemDraw", "natural_sciences"),
    Program("avogadro", "Avogadro", "ChemDraw", "natural_sciences"),
    Program("qgis", "QGIS", "ArcGIS", "natural_sciences"),
    Program("gimp", "GIMP", "Photoshop", "design"),
    Program("inkscape", "Inkscape", "Illustrator", "design"),
)
PROGRAMS: dict[str, Program] = {p.app: p for p in _PROGRAMS}
assert all(p.domain in DOMAINS for p in _PROGRAMS), "a program's domain is not one of DOMAINS"


def apps_of(task: Task) -> list[str]:
    """The task's ``apps`` (empty when it names none or the field is not a list)."""
    apps = task.extra.get("apps")
    return [str(a) for a in apps] if isinstance(apps, list) else []


def domains_of(apps: Iterable[str]) -> list[str]:
    """The domains of the programs ``apps``, in ``DOMAINS`` order, each once; KeyError naming an unknown app."""
    found = set()
    for app in apps:
        if app not in PROGRAMS:
            raise KeyError(app)
        found.add(PROGRAMS[app].domain)
    return [d for d in DOMAINS if d in found]


def domain_markers(task: Task) -> Sequence[str]:
    """The task's ``domain_<name>`` markers, one per domain of its programs (``check_apps`` has passed)."""
    return [MARKER_PREFIX + d for d in domains_of(apps_of(task))]


def check_apps(task: Task) -> None:
    """Every task names its programs, and each has a row in ``PROGRAMS``: else a ``TaskFileError`` naming the
    task file, the task and the app."""
    path = task.source.split("#")[0] or "?"
    apps = apps_of(task)
    if not apps:
        raise TaskFileError(path, "names no program (\"apps\"), so it has no ProSoftArena domain",
                            task_id=task.id, field_name="apps")
    for app in apps:
        if app not in PROGRAMS:
            raise TaskFileError(path, f"app {app!r} has no domain: add a row for it to suites/prosoft/domains.py "
                                      f"(known apps: {', '.join(sorted(PROGRAMS))})",
                                task_id=task.id, field_name="apps")
