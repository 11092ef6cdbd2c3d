"""The layers of pytest_cua/, bottom first: a module may import its own layer and the layers below it, never
one above. A module's layer is that of the longest prefix below that names it. docs/architecture.md explains
each layer; change both together.
"""

from __future__ import annotations

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("pytest_cua._compat", "pytest_cua.actions", "pytest_cua.observations", "pytest_cua.redaction",
              "pytest_cua.package_data", "pytest_cua.hooks")),
    ("task model", ("pytest_cua.tasks.task",)),
    ("environment contract", ("pytest_cua.envs.base",)),
    ("tasks", ("pytest_cua.tasks",)),
    ("orgs", ("pytest_cua.orgs",)),
    ("environments", ("pytest_cua.envs",)),
    ("agents", ("pytest_cua.agents",)),
    ("episode", ("pytest_cua.episode",)),
    ("results", ("pytest_cua.results",)),
    ("wiring", ("pytest_cua", "pytest_cua.plugin", "pytest_cua.fixtures", "pytest_cua.cli", "pytest_cua.testing")),
    ("suites", ("suites",)),
)


def layer_of(module: str) -> tuple[int, str]:
    """(position, name) of the layer ``module`` belongs to."""
    best: tuple[int, int, str] | None = None
    for position, (name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), position, name)
    if best is None:
        raise LookupError(f"{module} is in no layer of tests/architecture/layers.py")
    return best[1], best[2]
