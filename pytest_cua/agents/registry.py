"""Agents by name: the ``pytest_cua.agents`` entry-point group.

``--agent NAME`` resolves in this order:

1. an entry point called NAME (``noop``, ``replay``, ``oracle``, or a provider such as ``openai``);
2. ``PROVIDER:MODEL`` - the provider's entry point, given the model (a model alias the provider lists is
   expanded: ``anthropic:claude-opus-5-5`` sends what ``claude-opus-5-5`` sends);
3. a model alias that a provider lists in its ``models`` mapping (``--agent=gpt-5.5`` -> provider ``openai``,
   model ``gpt-5.5``); providers from a ``pytest_cua_agents`` hook are asked before the installed ones;
4. an alias in a provider's ``deprecated`` mapping (alias -> ``agents.deprecation.Deprecation``): before its
   shutdown date it resolves like 3. and the spec carries a ``notice`` (the session's one warning), the
   ``deprecation`` every record carries and ``warning_filters`` for the SDK's own warning on each call; from
   that date on it is an ``UnknownAgent`` naming the date and the replacement, like an alias in a provider's
   ``retired`` mapping. ``PROVIDER:MODEL`` naming a deprecated model is sent as given, with the notice.
   "Today" is ``resolve(..., today=)``, else ``PYTEST_CUA_TODAY``, else the local date.

Bridges that ship with pytest-cua answer like entry points: ``osworld`` (``--agent osworld:package.module:Class``,
``agents.bridges.osworld``), ``scuba`` (``--agent scuba:UI-TARS-1.5`` and SCUBA's other released agents,
``agents.bridges.scuba``), ``agent-s`` (Agent S2.5 of ``gui-agents``, ``agents.bridges.agent_s``); an installed
entry point of the same name wins.

An entry point names a class or a factory. A class with a ``from_spec(spec)`` classmethod gets the spec; any
other callable is called with no argument.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Callable, Mapping

from pytest_cua.agents.base import Agent
from pytest_cua.agents.deprecation import Deprecation, today as today_from_env

ENTRY_POINT_GROUP = "pytest_cua.agents"
#: the bridges to other harnesses' agents, resolved as if they were entry points of the group
BRIDGES = {"osworld": "pytest_cua.agents.bridges.osworld:OSWorldBridge",
           "scuba": "pytest_cua.agents.bridges.scuba:ScubaBridge",
           "agent-s": "pytest_cua.agents.bridges.agent_s:AgentSBridge"}


class UnknownAgent(LookupError):
    pass


@dataclass(frozen=True)
class AgentSpec:
    """What ``--agent`` asked for."""

    text: str  # as given
    provider: str  # entry point name
    model: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    notice: str | None = None  # a deprecated model: the session's warning (shutdown date, replacement)
    deprecation: Mapping[str, Any] | None = None  # a deprecated model: what every record carries
    warning_filters: tuple[str, ...] = ()  # a deprecated model: ``filterwarnings`` lines for the SDK's own warning


def _entry_points() -> dict[str, EntryPoint]:
    found = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    for name, value in BRIDGES.items():
        found.setdefault(name, EntryPoint(name, value, ENTRY_POINT_GROUP))
    return dict(sorted(found.items()))


class AgentRegistry:
    """The known agents; ``extra`` adds factories by name without an entry point (tests, conftest)."""

    def __init__(self, extra: Mapping[str, Callable[..., Agent]] | None = None) -> None:
        self._eps = _entry_points()
        self._extra = dict(extra or {})

    def names(self) -> list[str]:
        return sorted(set(self._eps) | set(self._extra))

    def _load(self, name: str) -> Any:
        if name in self._extra:
            return self._extra[name]
        try:
            return self._eps[name].load()
        except Exception as exc:
            raise UnknownAgent(f"agent {name!r} could not be loaded from {self._eps[name].value}: {exc}") from exc

    def resolve(self, text: str, options: Mapping[str, Any] | None = None, *,
                today: dt.date | None = None) -> AgentSpec:
        text = text.strip()
        opts = dict(options or {})
        if text in self._extra or text in self._eps:
            return AgentSpec(text, text, None, opts)
        if ":" in text:
            provider, model = text.split(":", 1)
            if provider in self._extra or provider in self._eps:
                models = getattr(self._load(provider), "models", None)
                if isinstance(models, Mapping) and model in models:
                    model = models[model]
                old = _deprecated_model(self._load(provider), model)
                if old is not None:  # any model id is sent as given: the notice says it is deprecated or gone
                    day = _today(text, today)
                    return AgentSpec(text, provider, old.model, opts, deprecation=old.describe(day),
                                     notice=old.warning(text, day) if old.served_on(day) else old.gone(text),
                                     warning_filters=old.warning_filters())
                return AgentSpec(text, provider, model or None, opts)
        # a provider added by a conftest hook lists its aliases before the installed ones
        for name in [*sorted(self._extra), *[n for n in self._eps if n not in self._extra]]:
            models = getattr(self._load(name), "models", None)
            if isinstance(models, Mapping) and text in models:
                return AgentSpec(text, name, models[text], opts)
        for name in [*sorted(self._extra), *[n for n in self._eps if n not in self._extra]]:
            deprecated = getattr(self._load(name), "deprecated", None)
            if isinstance(deprecated, Mapping) and isinstance(deprecated.get(text), Deprecation):
                old = deprecated[text]
                day = _today(text, today)
                if not old.served_on(day):
                    raise UnknownAgent(f"agent {text!r}: {old.refusal(name)}")
                return AgentSpec(text, name, old.model, opts, notice=old.warning(text, day),
                                 deprecation=old.describe(day), warning_filters=old.warning_filters())
        for name in [*sorted(self._extra), *[n for n in self._eps if n not in self._extra]]:
            retired = getattr(self._load(name), "retired", None)
            if isinstance(retired, Mapping) and text in retired:
                raise UnknownAgent(f"agent {text!r}: the alias is retired; use {retired[text]}")
        raise UnknownAgent(f"unknown agent {text!r}; known agents: {', '.join(self.names()) or 'none'} "
                           f"(or PROVIDER:MODEL, or a model alias a provider lists)")

    def validate(self, spec: AgentSpec) -> None:
        """Let the provider refuse a run that cannot work (no API key, a style the model has not) before
        anything runs: its ``validate(spec)`` classmethod, when it has one, raises ValueError."""
        factory = self._load(spec.provider)
        check = getattr(factory, "validate", None)
        if callable(check):
            try:
                check(spec)
            except ValueError as exc:
                raise UnknownAgent(f"agent {spec.text!r}: {exc}") from None

    def create(self, spec: AgentSpec) -> Agent:
        factory = self._load(spec.provider)
        from_spec = getattr(factory, "from_spec", None)
        agent = from_spec(spec) if callable(from_spec) else factory()
        if not isinstance(agent, Agent):
            raise UnknownAgent(f"agent {spec.provider!r} built a {type(agent).__name__}, not a pytest_cua Agent")
        if spec.deprecation is not None:
            agent.deprecation = dict(spec.deprecation)
        return agent


def _deprecated_model(factory: Any, model: str) -> Deprecation | None:
    """The provider's deprecation of ``model`` (a deprecated alias, or the model id one sends), if any."""
    deprecated = getattr(factory, "deprecated", None)
    if not isinstance(deprecated, Mapping):
        return None
    for alias, old in deprecated.items():
        if isinstance(old, Deprecation) and model in (alias, old.model):
            return old
    return None


def _today(text: str, given: dt.date | None) -> dt.date:
    """The date a deprecated alias is judged on: ``given``, else PYTEST_CUA_TODAY, else the local date."""
    if given is not None:
        return given
    try:
        return today_from_env()
    except ValueError as exc:
        raise UnknownAgent(f"agent {text!r}: {exc}") from None
