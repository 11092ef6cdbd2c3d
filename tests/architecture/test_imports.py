"""The shape of the import graph: no circles, and no import from a lower layer back up (tests/architecture/
layers.py). Every import counts, those inside functions and under ``TYPE_CHECKING`` too, so a new circle or an
upward import fails here, naming the modules and lines."""

from __future__ import annotations

from tests.architecture.imports import ROOT, Graph, cycles, read_graph
from tests.architecture.layers import LAYERS, layer_of

import pytest


@pytest.fixture(scope="module")
def graph() -> Graph:
    return read_graph()


def test_no_import_circles(graph: Graph) -> None:
    found = cycles(graph.edges())
    lines = []
    for component in found:
        members = set(component)
        inside = [f"    {i.source}:{i.line} -> {i.target}" for i in graph.imports
                  if i.source in members and i.target in members]
        lines.append(" <-> ".join(component) + "\n" + "\n".join(sorted(set(inside))))
    assert not found, f"{len(found)} import circle(s):\n" + "\n".join(lines)


def test_no_import_from_a_lower_layer_up(graph: Graph) -> None:
    upward = []
    for imp in graph.imports:
        (low, low_name), (high, high_name) = layer_of(imp.source), layer_of(imp.target)
        if high > low:
            path = graph.modules[imp.source].relative_to(ROOT)
            upward.append(f"{path}:{imp.line}: {imp.source} ({low_name}) imports {imp.target} ({high_name})")
    assert not upward, "imports from a lower layer up:\n" + "\n".join(sorted(set(upward)))


def test_every_module_is_in_a_layer(graph: Graph) -> None:
    for name in graph.modules:
        layer_of(name)  # raises LookupError naming the module


def test_the_checker_finds_a_circle_and_an_upward_import(tmp_path) -> None:
    """The checks above can fail: a made-up tree with a circle and an upward import is caught."""
    pkg = tmp_path / "pytest_cua"
    (pkg / "tasks").mkdir(parents=True)
    (pkg / "results").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "tasks" / "__init__.py").write_text("")
    (pkg / "results" / "__init__.py").write_text("")
    (pkg / "tasks" / "suite.py").write_text("from typing import TYPE_CHECKING\n"
                                            "if TYPE_CHECKING:\n    from pytest_cua.results import records\n")
    (pkg / "results" / "records.py").write_text("def f():\n    from pytest_cua.tasks.suite import X\n")
    made = read_graph(tmp_path, ("pytest_cua",))
    assert cycles(made.edges()) == [["pytest_cua.results.records", "pytest_cua.tasks.suite"]]
    upward = [(i.source, i.target) for i in made.imports if layer_of(i.target)[0] > layer_of(i.source)[0]]
    assert upward == [("pytest_cua.tasks.suite", "pytest_cua.results.records")]
    assert [name for name, _ in LAYERS][:2] == ["core", "task model"]
