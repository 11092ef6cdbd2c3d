"""Fixtures of the model agent tests: a fake vendor server on loopback, the API keys the agents need, and the
agents a test builds (closed after it)."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from pytest_cua.testing.fake_models import FakeModelServer

KEY = "sk-test-model-agents-0123456789"


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer(api_key=KEY) as srv:
        yield srv


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every vendor's key set (to the fake server's): the agents check for them before anything runs."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_COMPATIBLE_API_KEY"):
        monkeypatch.setenv(name, KEY)


@pytest.fixture(scope="module", autouse=True)
def _release_modules_forgotten() -> Iterator[None]:
    """After a module of these tests, the top-level packages a bridge imported in place (SCUBA's ``agents`` from
    its checkout) and the folders it put on sys.path are forgotten: a later test in this worker that imports a
    module of its own called ``agents`` gets its own."""
    import sys

    modules, path = set(sys.modules), list(sys.path)
    yield
    for name in [n for n in sys.modules if n not in modules and (n == "agents" or n.startswith("agents."))]:
        del sys.modules[name]
    sys.path[:] = path


@pytest.fixture
def agents() -> Iterator[list[Any]]:
    """Agents a test builds, closed after it (a bridged agent's proxies and shims stop)."""
    made: list[Any] = []
    yield made
    for agent in made:
        agent.close()


def raised_by_step(agent: Any, observation: Any, within_s: float = 30.0) -> BaseException | None:
    """What one ``agent.step(observation)`` raised (None when it returned), run in a daemon thread: a step that
    does not end within ``within_s`` fails the test instead of hanging it."""
    import threading

    outcome: dict[str, BaseException] = {}
    ended = threading.Event()

    def step() -> None:
        try:
            agent.step(observation)
        except BaseException as exc:  # noqa: BLE001 - a replay miss stops an agent's call with a BaseException
            outcome["raised"] = exc
        finally:
            ended.set()

    threading.Thread(target=step, daemon=True).start()
    assert ended.wait(within_s), f"the step did not end within {within_s:.0f} s"
    return outcome.get("raised")
