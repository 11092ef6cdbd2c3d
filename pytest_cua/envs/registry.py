"""The environment providers installed: the ``pytest_cua.environments`` entry-point group.

Each entry point names an ``EnvironmentProvider`` object (a plain factory ``(EnvContext) -> Environment`` is
accepted too and wrapped). The core plugin asks every provider for its options (``add_provider_options``); the
pool finds a suite's provider with ``provider_for``. A provider that fails to load does not break pytest: its
options are missing and a suite that names it gets a ``ProvisioningError`` with the reason.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

from pytest_cua.envs.base import EnvironmentProvider, FactoryProvider, ProvisioningError

ENTRY_POINT_GROUP = "pytest_cua.environments"

_LOADED: dict[str, EnvironmentProvider] | None = None
_BROKEN: dict[str, str] = {}  # provider name -> why it did not load


def as_provider(obj: Any, name: str) -> EnvironmentProvider:
    """``obj`` as a provider: an ``EnvironmentProvider`` as it is, a provider class instantiated, a factory
    wrapped."""
    if isinstance(obj, EnvironmentProvider):
        return obj
    if isinstance(obj, type) and issubclass(obj, EnvironmentProvider):
        return obj()
    if callable(obj):
        return FactoryProvider(obj, name)
    raise TypeError(f"environment provider {name!r} is a {type(obj).__name__}, not an EnvironmentProvider "
                    f"or a factory (EnvContext) -> Environment")


def providers() -> dict[str, EnvironmentProvider]:
    """Every installed provider by name, loaded once per process (sorted by name)."""
    global _LOADED
    if _LOADED is None:
        loaded: dict[str, EnvironmentProvider] = {}
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            if ep.name in loaded:
                continue  # the same distribution seen twice on sys.path
            try:
                provider = as_provider(ep.load(), ep.name)
            except Exception as exc:  # noqa: BLE001 - a broken third-party provider must not break pytest
                _BROKEN[ep.name] = f"{ep.value}: {type(exc).__name__}: {exc}"
                continue
            if not provider.name:
                provider.name = ep.name
            loaded[ep.name] = provider
        _LOADED = loaded
    return _LOADED


def add_provider_options(group: Any) -> None:
    """Let every installed provider add its command-line options."""
    for provider in providers().values():
        provider.add_options(group)


def configure_providers(config: Any) -> None:
    """Let every installed provider check its options at ``pytest_configure`` (a usage error stops the run)."""
    for provider in providers().values():
        provider.configure(config)


def provider_for(suite: Any) -> EnvironmentProvider:
    """The provider of a suite's ``environment``: a provider name, a provider object or a factory."""
    wanted = suite.environment
    if not isinstance(wanted, str):
        return as_provider(wanted, getattr(wanted, "name", "") or getattr(wanted, "__name__", "environment"))
    found = providers()
    provider = found.get(wanted)
    if provider is not None:
        return provider
    if wanted in _BROKEN:
        raise ProvisioningError(f"suite {suite.name!r}: environment provider {wanted!r} did not load: "
                                f"{_BROKEN[wanted]}")
    raise ProvisioningError(f"suite {suite.name!r}: unknown environment {wanted!r}; "
                            f"known: {', '.join(sorted(found)) or 'none'}")


def preflight(suite: Any, config: Any) -> str | None:
    """Why no environment could be provisioned for ``suite`` on this machine, found before any task runs (an
    unknown provider, a program, engine or image its provider lacks), as one message naming what to run; None
    when nothing certain is missing."""
    try:
        provider = provider_for(suite)
    except ProvisioningError as exc:
        return str(exc)
    return provider.preflight(config, suite)
