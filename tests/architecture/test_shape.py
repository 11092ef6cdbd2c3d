"""The shape of pytest_cua/: every package says what it holds and what it may import, and a module of more
than about 500 lines holds one concept (listed below with that concept, so a new long module is a decision
someone wrote down, not an accident)."""

from __future__ import annotations

import ast

from tests.architecture.imports import ROOT

LONG = 500

# module (path under pytest_cua/) -> the one concept it holds
ONE_CONCEPT: dict[str, str] = {
    "orgs/localorg/store.py": "the record store: CRUD, transactions, snapshot and restore, the recycle bin over "
                              "private tables (behaviours subscribe to its hooks)",
    "orgs/localorg/soql/engine.py": "the SOQL executor: one class running a parsed query against the store",
    "orgs/localorg/api.py": "the REST and OAuth routes of the embedded org",
}


def _modules() -> list[tuple[str, int]]:
    out = []
    for path in sorted((ROOT / "pytest_cua").rglob("*.py")):
        if "__pycache__" not in path.parts:
            lines = len(path.read_text(encoding="utf-8").splitlines())
            out.append((path.relative_to(ROOT / "pytest_cua").as_posix(), lines))
    return out


def test_long_modules_hold_one_named_concept() -> None:
    long = {name: lines for name, lines in _modules() if lines > LONG}
    unnamed = [f"pytest_cua/{name} ({lines} lines)" for name, lines in long.items() if name not in ONE_CONCEPT]
    assert not unnamed, ("modules over %d lines: split them by concept, or name their one concept in "
                         "tests/architecture/test_shape.py ONE_CONCEPT:\n  " % LONG) + "\n  ".join(unnamed)
    stale = sorted(set(ONE_CONCEPT) - set(long))
    assert not stale, f"ONE_CONCEPT lists modules that are no longer long (remove them): {stale}"


def test_every_package_says_what_it_holds_and_may_import() -> None:
    missing = []
    for init in sorted((ROOT / "pytest_cua").rglob("__init__.py")):
        if "__pycache__" in init.parts or "templates" in init.parts:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        if "may import" not in doc.lower():
            missing.append(init.relative_to(ROOT).as_posix())
    assert not missing, ("package docstrings must say what the package holds and what it may import "
                         "('May import: ...'):\n  " + "\n  ".join(missing))
