"""The test run's tiers and order, for every folder of tests.

- ``full``-marked tests are skipped unless ``PYTEST_CUA_FULL=1`` (``tests/tiers.py``): the skip names the
  variable, so a CI log says what it left out;
- ``benchmark``-marked tests run only when ``-m`` asks for benchmarks (``addopts`` deselects them, but a
  ``-m docker`` of one's own replaces that);
- ``docker_client`` and ``chromium_available``: what a test of any folder needs of the machine, skipped without it
  (a failure when CI is set: the install scripts provide both);
- test modules holding a ``slow`` test run first, each module's tests kept together and in order: under xdist
  the long end-to-end runs start while the quick tests fill the other worker, instead of one of them ending
  the run alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.tiers import FULL_ENV, full, in_ci


def pytest_configure(config: pytest.Config) -> None:
    try:
        full()
    except ValueError as exc:  # a bad PYTEST_CUA_FULL stops the run at start, naming the variable
        raise pytest.UsageError(str(exc)) from None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    benchmarks = "benchmark" in (config.option.markexpr or "")
    skip_full = pytest.mark.skip(reason=f"part of the full run: set {FULL_ENV}=1")
    skip_bench = pytest.mark.skip(reason="a benchmark: run with -m benchmark")
    for item in items:
        if not full() and item.get_closest_marker("full") is not None:
            item.add_marker(skip_full)
        if not benchmarks and item.get_closest_marker("benchmark") is not None:
            item.add_marker(skip_bench)
    slow_modules = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items[:] = [i for i in items if i.path in slow_modules] + [i for i in items if i.path not in slow_modules]


@pytest.fixture(scope="session")
def docker_client() -> Any:
    """A docker SDK client; skips (fails when CI is set) when no dockerd answers."""
    try:
        from pytest_cua.envs.docker.images import docker_client as make_client

        client = make_client()
        client.ping()
    except Exception as exc:
        reason = (f"no dockerd answers ({type(exc).__name__}: {exc}); start one with scripts/ensure_docker.sh")
        if in_ci():
            pytest.fail(f"CI is set and {reason}", pytrace=False)
        pytest.skip(reason)
    return client


@pytest.fixture(scope="session")
def chromium_available() -> None:
    """Skips when no Chromium is found (the message says how to install one)."""
    from pytest_cua.envs.base import ProvisioningError
    from pytest_cua.envs.browser import find_chromium

    try:
        find_chromium(None)
    except ProvisioningError as exc:
        pytest.skip(str(exc))
