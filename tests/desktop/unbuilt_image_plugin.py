"""A plugin for tests/desktop/test_preflight.py (``-p tests.desktop.unbuilt_image_plugin``): the desktop images
read as never built on this machine, whose images are in fact built. Only the image's state is pretended; the
programs and the user the preflight checks are the machine's own."""

from __future__ import annotations

from typing import Any

from pytest_cua.envs.docker import preflight


def _never_built(client: Any, image: str, recipe_hash: str | None) -> str:
    return "missing"


def pytest_configure(config: Any) -> None:
    preflight.image_state = _never_built  # type: ignore[assignment]
