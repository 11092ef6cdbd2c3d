"""Fixtures of the desktop tests: a reachable dockerd (skip without one, fail under CI), the base image,
and one Docker environment per test module."""

from __future__ import annotations

import os
from typing import Any, Iterator

import pytest

from .desktop_helpers import BASE_IMAGE, make_env


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def docker_client() -> Any:
    """A docker SDK client; skips (fails when CI is set) when no dockerd answers."""
    try:
        from pytest_cua.desktop.images import docker_client as make_client

        client = make_client()
        client.ping()
    except Exception as exc:
        reason = (f"no dockerd answers ({type(exc).__name__}: {exc}); start one with scripts/ensure_docker.sh")
        if _in_ci():
            pytest.fail(f"CI is set and {reason}", pytrace=False)
        pytest.skip(reason)
    return client


@pytest.fixture(scope="session")
def base_image(docker_client: Any) -> str:
    """The cua-desktop-base image, built from its recipe when missing or outdated (minutes the first time)."""
    from pytest_cua.desktop.images import build_image
    from pytest_cua.desktop.recipes import load_recipe

    build_image(load_recipe(BASE_IMAGE), client=docker_client, progress=lambda line: None)
    return BASE_IMAGE


@pytest.fixture(scope="module")
def desktop(base_image: str) -> Iterator[Any]:
    """A running Docker environment (one per module) with its first snapshot taken."""
    env = make_env(base_image)
    env.test_snapshot = env.snapshot()
    yield env
    env.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Benchmarks take minutes: they run only when asked for with ``-m benchmark``."""
    if "benchmark" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="a benchmark: run with -m benchmark")
    for item in items:
        if item.get_closest_marker("benchmark") is not None and "tests/desktop" in str(item.fspath):
            item.add_marker(skip)
