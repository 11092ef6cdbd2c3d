"""The FEM evaluator (``fem``, checks/fem.py) without docker: the analysis each task asks for passes every
milestone, near misses fail the milestone that names them (the right constraint with a wrong value or on the
wrong face, the solver run on the unchanged model, the change never saved, a file that is no FreeCAD document),
and a missing document fails every milestone without asking the container.

What FreeCAD reads from a saved document comes from a stand-in environment here: it answers the evaluator's
``freecadcmd`` script with the JSON line the script prints in the container (that script and the real documents
are exercised by the replay runs of tasks/fem.json). The ground truths are those of the generated tasks.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Mapping

import pytest

from .evaluation import failed, milestones, truth_of

ROOT = Path(__file__).resolve().parents[2]
TASKS = {t["id"]: t for t in json.loads((ROOT / "suites/prosoft/tasks/fem.json").read_text())["tasks"]}
REFERENCE = json.loads((ROOT / "fixtures/prosoft/fem/reference.json").read_text())


class FreeCADStandIn:
    """Answers ``run`` like the container: FreeCAD's banner, then the JSON line of the evaluator's script."""

    def __init__(self, answer: Mapping[str, Any]) -> None:
        self.answer, self.calls = dict(answer), []  # type: ignore[var-annotated]

    def run(self, argv: list[str], timeout: float = 60) -> dict[str, Any]:
        self.calls.append(argv)
        return {"returncode": 0, "stdout": "FreeCAD 0.20.2\n" + json.dumps(self.answer) + "\n", "stderr": ""}


def fcstd(tmp_path: Path) -> Path:
    """A file that opens as a FreeCAD document's zip (its content comes from the stand-in)."""
    path = tmp_path / "beam.FCStd"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("Document.xml", "<Document/>")
    return path


def model(force: float = 1000.0, force_face: str = "Face6", fixed: list[str] | None = ["Face1"],  # noqa: B006
          young: float = 210000.0, nodes: int = 2500, max_size: float = 4.0, volumes: int = 1200,
          result: Mapping[str, float] | None = None) -> dict[str, Any]:
    """What the evaluator's script prints for a beam analysis saved with these settings."""
    objects: list[dict[str, Any]] = [
        {"name": "Beam", "label": "Beam", "type": "Part::Box", "in_analysis": False},
        {"name": "CalculiX", "label": "CalculiX", "type": "Fem::FemSolverObjectPython", "in_analysis": True},
        {"name": "Steel", "label": "Steel", "type": "App::MaterialObjectPython", "in_analysis": True,
         "youngs_modulus": young},
        {"name": "Force", "label": "Force", "type": "Fem::ConstraintForce", "in_analysis": True,
         "refs": [["Beam", [force_face]]], "force": force},
        {"name": "BeamMesh", "label": "BeamMesh", "type": "Fem::FemMeshObjectPython", "in_analysis": True,
         "nodes": nodes, "volumes": volumes, "max_size": max_size},
    ]
    if fixed is not None:
        objects.append({"name": "Fixed", "label": "Fixed", "type": "Fem::ConstraintFixed", "in_analysis": True,
                        "refs": [["Beam", list(fixed)]]})
    if result is not None:
        objects.append({"name": "CCX_Results", "label": "CCX_Results", "type": "Fem::FemResultObjectPython",
                        "in_analysis": True, "result": True, **result})
    return {"analyses": 1, "objects": objects}


def ref(key: str, scale: float = 1.0) -> dict[str, float]:
    return {"max_displacement": REFERENCE[key]["max_displacement"] * scale,
            "max_von_mises": REFERENCE[key]["max_von_mises"] * scale}


def run(task_id: str, tmp_path: Path | None, answer: Mapping[str, Any] | None) -> dict[str, str | None]:
    task = TASKS[task_id]
    env = FreeCADStandIn(answer or {"error": "must not be asked"})
    ctx_task = SimpleNamespace(id=task_id, extra={"artifacts": task["artifacts"]})
    files = {"model": fcstd(tmp_path)} if tmp_path is not None else {}
    return milestones("fem", truth_of(TASKS, task_id, "fem"), files, task=ctx_task, env=env)


# the right model of each task, then its near misses and the milestones each must fail
CASES: dict[str, tuple[dict[str, Any], list[tuple[str, dict[str, Any], set[str]]]]] = {}


def case(task_id: str, right: dict[str, Any], *near: tuple[str, dict[str, Any], set[str]]) -> None:
    CASES[task_id] = (right, list(near))


def _labels(task_id: str) -> list[str]:
    return list(milestones("fem", truth_of(TASKS, task_id, "fem"), {}))


def _one(task_id: str, word: str) -> set[str]:
    found = {label for label in _labels(task_id) if word in label}
    assert found, (task_id, word, _labels(task_id))
    return found


case("fem-solve", model(result=ref("base")),
     ("solved, never saved: the start file", model(), _one("fem-solve", "max")),
     ("solved with the load doubled", model(force=2000, result=ref("base", 2.0)), _one("fem-solve", "max")),
     ("solved without the fixed support (a rigid-body result, huge)", model(fixed=None, result=ref("base", 1e6)),
      _one("fem-solve", "max")))
case("fem-force", model(force=2500),
     ("250 N: a zero lost", model(force=250), _one("fem-force", "force")),
     ("2500 N on the bottom face", model(force=2500, force_face="Face5"), _one("fem-force", "force")),
     ("unchanged", model(), _one("fem-force", "force")))
case("fem-force-solve", model(force=2500, result=ref("force_2500")),
     ("the load changed, the old results kept (not solved again)", model(force=2500, result=ref("base")),
      _one("fem-force-solve", "max")),
     ("solved, the load change not saved", model(result=ref("base")), _one("fem-force-solve", "")),
     ("1000 N solved, 2500 N typed afterwards", model(force=2500, result=ref("base")),
      _one("fem-force-solve", "max")))

case("fem-mesh", model(nodes=4285, max_size=3.0),
     ("meshed at the old 4 mm", model(nodes=2331, max_size=4.0), _one("fem-mesh", "meshed")),
     ("3 mm set, never meshed (no elements)", model(nodes=0, volumes=0, max_size=3.0), _one("fem-mesh", "meshed")),
     ("a 3 mm mesh of the wrong part: few nodes", model(nodes=120, max_size=3.0), _one("fem-mesh", "meshed")))
case("fem-halve-load-solve", model(force=500, result=ref("base", 0.5)),
     ("500 N set, solved before the change", model(force=500, result=ref("base")), _one("fem-halve-load-solve", "max")),
     ("50 N: a zero too many lost", model(force=50, result=ref("base", 0.05)), _one("fem-halve-load-solve", "")),
     ("the load doubled instead of halved", model(force=2000, result=ref("base", 2.0)),
      _one("fem-halve-load-solve", "")))


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_the_asked_model_passes(tmp_path: Path, task_id: str) -> None:
    right, _ = CASES[task_id]
    result = run(task_id, tmp_path, right)
    assert not failed(result), result


@pytest.mark.parametrize("task_id,what,answer,must_fail",
                         [(t, w, a, f) for t, (_, near) in sorted(CASES.items()) for w, a, f in near])
def test_near_misses_fail_the_milestone_that_names_them(tmp_path: Path, task_id: str, what: str,
                                                        answer: dict[str, Any], must_fail: set[str]) -> None:
    result = run(task_id, tmp_path, answer)
    assert set(failed(result)) == must_fail, (what, result)


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_a_missing_document_fails_every_milestone_without_asking_the_container(task_id: str) -> None:
    result = run(task_id, None, None)
    assert result and all(message and "was not produced" in message for message in result.values())


def test_other_files_and_freecad_errors_fail_without_an_error(tmp_path: Path) -> None:
    (tmp_path / "beam.FCStd").write_text("a text file under the document's name")
    task = TASKS["fem-solve"]
    ctx_task = SimpleNamespace(id="fem-solve", extra={"artifacts": task["artifacts"]})
    env = FreeCADStandIn({"error": "must not be asked"})
    result = milestones("fem", truth_of(TASKS, "fem-solve", "fem"), {"model": tmp_path / "beam.FCStd"},
                        task=ctx_task, env=env)
    assert all(message and "not a FreeCAD document" in message for message in result.values()) and not env.calls
    # FreeCAD itself refuses the file: its message, a missed milestone
    answer = {"error": "FreeCAD cannot open the file: invalid document"}
    assert all("cannot open" in str(m) for m in run("fem-solve", tmp_path, answer).values())
    # a document without an analysis
    assert all("no FEM analysis" in str(m) for m in run("fem-force", tmp_path, {"analyses": 0, "objects": []}).values())


def test_the_reference_figures_are_the_beam_theory_ones() -> None:
    """A cantilever under a load spread over its top face: w L^3 / (8 E I); CalculiX's 2nd-order tetrahedra
    agree within 1 %, so the figures the tasks check are the physics, not an artefact of a run."""
    bending = 1000 * 100 ** 3 / (8 * 210000 * (10 * 10 ** 3 / 12))
    assert REFERENCE["base"]["max_displacement"] == pytest.approx(bending, rel=0.01)
    assert REFERENCE["aluminium"]["max_displacement"] == pytest.approx(3 * REFERENCE["base"]["max_displacement"],
                                                                         rel=0.01)
    assert REFERENCE["force_2500"]["max_displacement"] == pytest.approx(
        2.5 * REFERENCE["base"]["max_displacement"], rel=0.01)


def test_the_support_and_material_checks(tmp_path: Path) -> None:
    """The kinds' other keys (a support, a material), which no task of tasks/fem.json asks for yet."""
    truth = {"fixed": {"faces": ["Face1"]}, "material": {"youngs_modulus": 70000}}
    ctx_task = SimpleNamespace(id="t", extra={"artifacts": {"model": "/root/work/beam.FCStd"}})

    def check(answer: Mapping[str, Any]) -> list[str]:
        return failed(milestones("fem", truth, {"model": fcstd(tmp_path)}, task=ctx_task, env=FreeCADStandIn(answer)))

    assert check(model(young=70000.0)) == []
    assert check(model(young=210000.0)) == ["model material E = 70000 MPa"]  # still steel
    assert check(model(young=70000.0, fixed=None)) == ["model fixed Face1"]  # no support
    assert check(model(young=70000.0, fixed=["Face2"])) == ["model fixed Face1"]  # the loaded end held instead
    assert check(model(young=70000.0, fixed=["Face1", "Face3"])) == ["model fixed Face1"]  # more than asked
