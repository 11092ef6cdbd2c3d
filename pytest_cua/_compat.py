"""Deprecated module paths: modules that moved into the concept packages stay importable under their old
names, with a ``DeprecationWarning`` that names the new home.

``import pytest_cua.records`` (or ``from pytest_cua.localorg.store import Org``) gets the very module object of
the new path, so classes are not duplicated and ``isinstance`` keeps working. The finder is installed by
``pytest_cua/__init__.py``; it only answers for the names in ``MOVED`` and their submodules.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import Sequence

# old dotted path -> new dotted path; a package's submodules follow it (pytest_cua.localorg.store ->
# pytest_cua.orgs.localorg.store). pytest_cua.tasks and pytest_cua.episode became packages of the same name:
# their __init__ forwards the old module's names instead.
MOVED: dict[str, str] = {
    "pytest_cua.action_parser": "pytest_cua.agents.action_parser",
    "pytest_cua.locators": "pytest_cua.agents.locators",
    "pytest_cua.marks": "pytest_cua.envs.marks",
    "pytest_cua.suite": "pytest_cua.tasks.suite",
    "pytest_cua.scoring": "pytest_cua.tasks.scoring",
    "pytest_cua.collection": "pytest_cua.tasks.collection",
    "pytest_cua.trajectory": "pytest_cua.episode.trajectory",
    "pytest_cua.human": "pytest_cua.episode.human",
    "pytest_cua.reruns": "pytest_cua.results.reruns",
    "pytest_cua.episode.reruns": "pytest_cua.results.reruns",
    "pytest_cua.judge": "pytest_cua.episode.judge",
    "pytest_cua.records": "pytest_cua.results.records",
    "pytest_cua.summary": "pytest_cua.results.summary",
    "pytest_cua.stats": "pytest_cua.results.stats",
    "pytest_cua.runs": "pytest_cua.results.runs",
    "pytest_cua.reporter": "pytest_cua.results.reporter",
    "pytest_cua.compare": "pytest_cua.results.compare",
    "pytest_cua.reporting.compare_report": "pytest_cua.results.compare.html",
    "pytest_cua.results.compare_report": "pytest_cua.results.compare.html",
    "pytest_cua.reporting": "pytest_cua.results",
    "pytest_cua.doctor": "pytest_cua.cli.doctor",
    "pytest_cua.mdapi": "pytest_cua.orgs.mdapi",
    "pytest_cua.orgauth": "pytest_cua.orgs.auth",
    "pytest_cua.orgpool": "pytest_cua.orgs.pool",
    "pytest_cua.localorg": "pytest_cua.orgs.localorg",
    "pytest_cua.realorg": "pytest_cua.orgs.realorg",
    "pytest_cua.desktop": "pytest_cua.envs.docker",
}


def new_name(old: str) -> str | None:
    """The current path of ``old``, or None when ``old`` did not move."""
    parts = old.split(".")
    for i in range(len(parts), 1, -1):
        prefix = ".".join(parts[:i])
        if prefix in MOVED:
            return ".".join([MOVED[prefix], *parts[i:]])
    return None


def warn_moved(old: str, new: str, stacklevel: int = 3) -> None:
    warnings.warn(f"{old} moved to {new}; the old path will be removed", DeprecationWarning, stacklevel=stacklevel)


class _Alias(importlib.abc.Loader):
    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.new)
        warn_moved(spec.name, self.new, stacklevel=8)
        return module

    def exec_module(self, module: ModuleType) -> None:
        pass  # already executed under its new name


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Answers imports of old module paths with the module of the new path."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        new = new_name(fullname) if fullname.startswith("pytest_cua.") else None
        if new is None:
            return None
        is_package = hasattr(importlib.import_module(new), "__path__")
        spec = importlib.machinery.ModuleSpec(fullname, _Alias(new), is_package=is_package)
        return spec


def install() -> None:
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
