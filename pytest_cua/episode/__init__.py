"""The episode: the observe -> act loop with its limits and outcome (``loop``), the per-step trajectory
(``trajectory``), human help (``human``), the LLM judge of open tasks (``judge``) and the run's settings as one resolved
object (``settings``: agent, limits, trials, trajectory folder).

May import: the core modules, ``tasks``, ``orgs``, ``envs`` and ``agents``. Not ``results`` nor the wiring.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """``pytest_cua.episode`` was a module: its names are still found here, with a deprecation warning."""
    import importlib

    from pytest_cua._compat import warn_moved

    module = importlib.import_module("pytest_cua.episode.loop")
    if name.startswith("__") or not hasattr(module, name):
        raise AttributeError(f"module 'pytest_cua.episode' has no attribute {name!r}")
    warn_moved(f"pytest_cua.episode.{name}", f"pytest_cua.episode.loop.{name}")
    return getattr(module, name)
