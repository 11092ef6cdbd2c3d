"""Running a ProSoft evaluator kind on artifacts built in a test, without a container: each milestone's label
and whether it held (the unit tests of suites/prosoft/checks share this)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Mapping

from suites.prosoft.templates import KINDS


def milestones(kind: str, truth: Mapping[str, Any], artifacts: Mapping[str, Path], **ctx: Any
               ) -> dict[str, str | None]:
    """Each milestone's label -> None (passed) or its assertion message; ``ctx`` adds fields of the
    evaluation context (``task``, ``env``)."""
    context = SimpleNamespace(artifacts=dict(artifacts), **ctx)
    out: dict[str, str | None] = {}
    for label, check in KINDS[kind](context, truth):  # type: ignore[arg-type]
        try:
            check()
            out[label] = None
        except AssertionError as exc:
            out[label] = str(exc)
    return out


def failed(result: Mapping[str, str | None]) -> list[str]:
    return [label for label, message in result.items() if message is not None]


def truth_of(tasks: Mapping[str, Mapping[str, Any]], task_id: str, kind: str) -> dict[str, Any]:
    """The ground truth of ``kind`` in a task (its step of that kind when the task is a pipeline)."""
    task = tasks[task_id]
    if task["template"] == "pipeline":
        return next(dict(s) for s in task["ground_truth"]["steps"] if s["template"] == kind)
    return dict(task["ground_truth"])


def task_milestones(task: Mapping[str, Any], artifacts: Mapping[str, Path],
                    step: Callable[[dict[str, Any]], dict[str, Any]] = lambda s: s) -> dict[str, str | None]:
    """Every milestone of a task as its template evaluates it (each step of a pipeline in turn); ``step`` may
    adjust a step's ground truth first (an L4's rubric left out where no judge is)."""
    steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [
        {**task["ground_truth"], "template": task["template"]}]
    out: dict[str, str | None] = {}
    for truth in steps:
        truth = step(dict(truth))
        out.update(milestones(truth["template"], truth, artifacts))
    return out


class TaskFile:
    """The tasks of one generated task file, evaluated without a container, and the near misses every task of a
    file-producing template must fail (the shared half of the per-group test modules)."""

    def __init__(self, path: Path, step: Callable[[dict[str, Any]], dict[str, Any]] = lambda s: s) -> None:
        import json

        self.root = path.resolve().parents[3]  # <repository>/suites/prosoft/tasks/<file>
        self.tasks: dict[str, dict[str, Any]] = {t["id"]: t for t in json.loads(path.read_text())["tasks"]}
        self._step = step

    def run_task(self, task_id: str, artifacts: Mapping[str, Path]) -> dict[str, str | None]:
        return task_milestones(self.tasks[task_id], artifacts, self._step)

    def fails(self, task_id: str, artifacts: Mapping[str, Path]) -> list[str]:
        return sorted(failed(self.run_task(task_id, artifacts)))

    def start_file(self, task_id: str) -> Path:
        return self.root / self.tasks[task_id]["start_files"][0]["src"]

    def artifact_name(self, task_id: str) -> str:
        return next(iter(self.tasks[task_id]["artifacts"]))

    def assert_no_two_share_start_files_and_result(self) -> None:
        import json

        pairs = [(tuple(f["src"] for f in t["start_files"]), json.dumps(t["ground_truth"], sort_keys=True))
                 for t in self.tasks.values()]
        assert len(set(pairs)) == len(pairs), "two tasks share their start files and their expected result"

    def assert_untouched_start_file_fails(self, task_id: str) -> None:
        """What noop leaves: the start file as it was (an unsaved change)."""
        out = self.run_task(task_id, {self.artifact_name(task_id): self.start_file(task_id)})
        assert failed(out), f"{task_id}: the start file passes"

    def assert_saved_elsewhere_fails(self, task_id: str) -> None:
        """The artifact not where the task says: every milestone fails, none raises."""
        out = self.run_task(task_id, {})
        assert set(failed(out)) == set(out), out
        assert all("was not produced" in (m or "") for m in out.values())

    def assert_wrong_file_types_fail(self, task_id: str, tmp_path: Path) -> None:
        """ODF content and CSV text under the expected name fail every milestone, naming the artifact."""
        import zipfile

        name = self.artifact_name(task_id)
        odf = tmp_path / "odf.bin"
        with zipfile.ZipFile(odf, "w") as z:
            z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
            z.writestr("content.xml", "<office:document-content/>")
        csv = tmp_path / "csv.bin"
        csv.write_text("Item,Q1\nRent,1200\n")
        for wrong in (odf, csv):
            out = self.run_task(task_id, {name: wrong})
            assert set(failed(out)) == set(out), out
            assert all(f"artifact {name!r}" in (m or "") for m in out.values())
