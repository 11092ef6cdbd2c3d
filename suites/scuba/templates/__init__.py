"""SCUBA templates as code: every module here defines ``TEMPLATES`` (a list of Template instances).

A template's ``name`` is SCUBA's ``query_template_name`` and its ground-truth keys are SCUBA's
``ground_truth_dict`` keys, so one evaluator serves the suite's own tasks and the tasks of SCUBA's release.
"""

from __future__ import annotations

import importlib
import pkgutil

from pytest_cua import Template


def discover() -> dict[str, Template]:
    """Every template of every module in this package, by name (sorted; a duplicate name is an error)."""
    found: dict[str, Template] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name in ("common", "shared", "metadata_io"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for template in getattr(module, "TEMPLATES", []):
            if template.name in found:
                raise ValueError(f"template {template.name!r} is defined twice (again in {module.__name__})")
            found[template.name] = template
    return dict(sorted(found.items()))
