"""Loading a foreign agent by ``package.module:Class``: the class (``load_class``), its constructor's arguments
from ``--cua-agent-option KEY=VALUE`` text (``constructor_kwargs``: values read as Python literals, checked
against the constructor's signature) and, when the agent raises, where it did (``frame_of``).

Nothing here runs the agent's output: an option's value is read with ``ast.literal_eval`` (numbers, strings,
booleans, ``None``, lists) and is otherwise the text as given.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import re
import traceback
from dataclasses import dataclass
from typing import Any, Mapping

_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class BridgeError(ValueError):
    """A bridged agent that cannot be loaded or built as configured; the message names the class and option."""


@dataclass(frozen=True)
class AgentClass:
    """A class named ``package.module:Class`` and the module it was found in."""

    path: str  # as given: package.module:Class
    cls: type
    module_file: str | None  # the module's file: frames under its folder are the agent's own

    @property
    def name(self) -> str:
        return self.cls.__name__


def load_class(path: str, *, prefix: str) -> AgentClass:
    """The class at ``path`` (``package.module:Class``, nested classes as ``Outer.Inner``); ``prefix`` names the
    bridge in errors (``osworld``)."""
    if not _PATH.fullmatch(path or ""):
        raise BridgeError(f"{prefix}:{path}: name the agent class as {prefix}:package.module:Class")
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # an import error inside the agent's module too: say which
        raise BridgeError(f"{prefix}:{path}: cannot import {module_name}: {type(exc).__name__}: {exc}") from None
    found: Any = module
    for part in attr.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise BridgeError(f"{prefix}:{path}: module {module_name} has no {attr}")
    if not inspect.isclass(found):
        raise BridgeError(f"{prefix}:{path}: {attr} is a {type(found).__name__}, not a class")
    return AgentClass(path, found, getattr(module, "__file__", None))


def option_value(text: str) -> Any:
    """An option's text as the constructor gets it: a Python literal (``3``, ``0.5``, ``True``, ``None``,
    ``['a', 'b']``; ``true``/``false``/``none`` too), otherwise the text itself (``gpt-4o``)."""
    lowered = text.strip().lower()
    if lowered in ("true", "false", "none"):
        return {"true": True, "false": False, "none": None}[lowered]
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def constructor_kwargs(agent: AgentClass, options: Mapping[str, str], *, prefix: str) -> dict[str, Any]:
    """The keyword arguments for the agent's constructor, each option's value read by ``option_value``; an
    option the constructor does not take is a ``BridgeError`` naming it and the parameters it takes."""
    kwargs = {key: option_value(value) for key, value in options.items()}
    try:
        signature = inspect.signature(agent.cls)
    except (TypeError, ValueError):
        return kwargs  # a constructor Python cannot describe: it checks its own arguments
    params = signature.parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return kwargs
    named = [p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                   inspect.Parameter.KEYWORD_ONLY)]
    unknown = sorted(set(kwargs) - set(named))
    if unknown:
        raise BridgeError(f"{prefix}:{agent.path}: --cua-agent-option {unknown[0]}: {agent.name}() takes no such "
                          f"argument; it takes: {', '.join(named) or 'none'}")
    try:
        signature.bind(**kwargs)
    except TypeError as exc:
        raise BridgeError(f"{prefix}:{agent.path}: {agent.name}(): {exc} (give it with --cua-agent-option "
                          "KEY=VALUE)") from None
    return kwargs


def frame_of(exc: BaseException, agent: AgentClass) -> str:
    """Where ``exc`` was raised: the innermost frame in the agent's own folder (``example.py:42 in predict``),
    and the innermost frame of all when that is elsewhere (an SDK's)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "no frame"
    home = os.path.dirname(os.path.abspath(agent.module_file)) if agent.module_file else None
    own = [f for f in frames if home and os.path.abspath(f.filename).startswith(home + os.sep)]

    def shown(frame: traceback.FrameSummary) -> str:
        return f"{_short(frame.filename)}:{frame.lineno} in {frame.name}"

    last = frames[-1]
    if own and own[-1] is not last:
        return f"{shown(own[-1])}; innermost {shown(last)}"
    return shown(last)


def _short(filename: str) -> str:
    """A file as its folder and name (``osworld_agents/example.py``), enough to find it, short in a record."""
    parts = os.path.normpath(filename).split(os.sep)
    return "/".join(parts[-2:])
