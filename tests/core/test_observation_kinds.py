"""Which observations an episode asks its environment for: ``--cua-observe``, then the agent's wish narrowed to
what the suite offers, then the suite's default for agents that ask for nothing, then all the suite offers."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from pytest_cua.fixtures import _observation_kinds
from pytest_cua.tasks.suite import Suite


class Agent:
    def __init__(self, kinds: Any = None) -> None:
        self.observation_kinds = kinds


def options(observe: str | None = None) -> argparse.Namespace:
    return argparse.Namespace(cua_observe=observe)


DESKTOP = Suite("desk", environment="docker", observation_kinds=("screenshot", "axtree", "som"),
                default_observation_kinds=("screenshot",))
BROWSER = Suite("web", environment="browser", observation_kinds=("screenshot", "axtree", "som"))


def test_an_agent_that_asks_for_nothing_gets_the_suites_default() -> None:
    assert _observation_kinds(options(), DESKTOP, Agent()) == {"screenshot"}
    assert _observation_kinds(options(), BROWSER, Agent()) == {"screenshot", "axtree", "som"}


def test_a_model_agent_gets_what_it_asks_for_within_what_the_suite_offers() -> None:
    assert _observation_kinds(options(), DESKTOP, Agent(frozenset({"som", "axtree"}))) == {"som", "axtree"}
    assert _observation_kinds(options(), DESKTOP, Agent(frozenset({"som", "dom"}))) == {"som"}


def test_the_command_line_wins() -> None:
    assert _observation_kinds(options("screenshot,axtree"), DESKTOP, Agent(frozenset({"som"}))) == \
        {"screenshot", "axtree"}


def test_a_default_the_suite_does_not_offer_is_refused() -> None:
    with pytest.raises(ValueError, match=r"default_observation_kinds \['dom'\] are not all offered"):
        Suite("bad", environment="docker", observation_kinds=("screenshot",), default_observation_kinds=("dom",))
