"""Hook specifications of pytest-cua (implement them in a conftest.py or a plugin)."""

from __future__ import annotations

from typing import Any, Callable, Mapping

import pytest


@pytest.hookspec
def pytest_cua_agents(config: pytest.Config) -> Mapping[str, Callable[..., Any]] | None:
    """Return extra agents by name: ``{"mine": MyAgent}``. They resolve with ``--agent`` like the ones of
    the ``pytest_cua.agents`` entry-point group, and win over an entry point of the same name."""
