"""Desktop environments in Docker: the environment itself (``environment``), image recipes and builds
(``recipes``, ``images``), the in-container executor (``executor*``, run inside the image's Python and importing
nothing of pytest_cua) and its client (``client``), docker hosts, human takeover by VNC (``takeover``), leftover
sweeping and the ``pytest-cua image`` / ``pytest-cua docker`` commands (``cli``).

May import the core modules, ``tasks``, ``orgs`` (certificates of the embedded org) and ``envs.base``.
``PROVIDER`` (the ``docker`` entry point) is loaded on first use, so the commands and the executor bundle do not
import the environment.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "PROVIDER":
        from pytest_cua.envs.docker.environment import PROVIDER

        return PROVIDER
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
