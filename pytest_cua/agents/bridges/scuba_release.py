"""SCUBA's release as the SCUBA bridge reads it: the checkout (``release_root``), the arguments its ``args.py``
declares (``release_args``: read from the file's syntax tree, never run) and its modules, imported from the
checkout where they are (``import_release``), unchanged and not copied.

SCUBA's agents are the top-level packages ``agents`` and ``browser_use`` of the checkout, imported the way SCUBA's
runners import them (``from agents.uitars15_v1 import UITARS15Agent``): the checkout is put on ``sys.path``. A
package of the same name already imported from elsewhere (the ``openai-agents`` distribution installs one called
``agents``; the ``browser-use`` distribution one called ``browser_use``) would be used instead: that is refused,
naming both places.
"""

from __future__ import annotations

import ast
import importlib
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Mapping

from pytest_cua.agents.bridges.loading import BridgeError

ROOT_OPTION = "scuba.root"
ROOT_VARIABLE = "PYTEST_CUA_SCUBA_ROOT"
RUN_OPTION = "--scuba-root"  # the SCUBA suite's option (suites/scuba/conftest.py)
_IMPORT_LOCK = threading.Lock()


def release_root(options: Mapping[str, str], run_root: str | None = None) -> Path:
    """The checkout, from the first of: ``--cua-agent-option scuba.root=PATH``, the run's ``--scuba-root``
    (``run_root``: the SCUBA suite registers the option, the run's settings pass its value down), the
    ``PYTEST_CUA_SCUBA_ROOT`` environment variable. A path that is not a checkout is a ``BridgeError`` naming its source."""
    given, source = root_source(options, run_root)
    if not given:
        raise BridgeError(f"scuba: name SCUBA's checkout (the release with agents/ and args.py) with "
                          f"--cua-agent-option {ROOT_OPTION}=PATH, --scuba-root PATH or the {ROOT_VARIABLE} "
                          "environment variable")
    root = Path(given).expanduser().resolve()
    for needed in ("args.py", "agents"):
        if not (root / needed).exists():
            raise BridgeError(f"{source}={given}: no {needed} there: not a checkout of SCUBA's release")
    return root


def root_source(options: Mapping[str, str], run_root: str | None = None) -> tuple[str | None, str]:
    """(the path given, where it was given) in the order ``release_root`` reads them; (None, "") for none."""
    for value, source in ((options.get(ROOT_OPTION), f"--cua-agent-option {ROOT_OPTION}"),
                          (run_root, RUN_OPTION), (os.environ.get(ROOT_VARIABLE), ROOT_VARIABLE)):
        if value:
            return str(value), source
    return None, ""


@dataclass(frozen=True)
class ReleaseArg:
    """One ``parser.add_argument`` of SCUBA's ``args.py``."""

    name: str  # as the Namespace has it: max_tokens
    kind: str  # int, float, str, flag (store_true), list (nargs)
    default: Any
    choices: tuple[Any, ...] | None
    help: str

    def read(self, text: str, where: str) -> Any:
        """``text`` (an option's value) as argparse would give it; a ``BridgeError`` naming ``where``."""
        try:
            if self.kind == "flag":
                lowered = text.strip().lower()
                if lowered not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError(text)
                value: Any = lowered in ("true", "1", "yes")
            elif self.kind == "int":
                value = int(text)
            elif self.kind == "float":
                value = float(text)
            elif self.kind == "list":
                value = text.split(",") if text else []
            else:
                value = text
        except ValueError:
            expected = {"flag": "true or false", "int": "a whole number", "float": "a number"}[self.kind]
            raise BridgeError(f"{where}: expected {expected}, got {text!r}") from None
        if self.choices is not None and value not in self.choices:
            raise BridgeError(f"{where}: choose one of {', '.join(map(str, self.choices))} (SCUBA's args.py), "
                              f"not {text!r}")
        return value


def release_args(root: Path) -> dict[str, ReleaseArg]:
    """Every argument ``args.py`` adds to its parser, with its type, default and choices, read from the syntax
    tree of the file (nothing of it is run)."""
    path = root / "args.py"
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, ValueError) as exc:
        raise BridgeError(f"{path}: cannot read SCUBA's arguments: {exc}") from None
    found: dict[str, ReleaseArg] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument" and node.args):
            continue
        flags = [_literal(a) for a in node.args]
        long = next((f for f in flags if isinstance(f, str) and f.startswith("--")), None)
        if long is None:
            continue
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        name = _literal(keywords["dest"]) if "dest" in keywords else long[2:].replace("-", "_")
        action = _literal(keywords["action"]) if "action" in keywords else None
        type_node = keywords.get("type")
        default: Any
        if action == "store_true":
            kind, default = "flag", False
        elif "nargs" in keywords:
            kind, default = "list", _literal(keywords["default"]) if "default" in keywords else None
        else:
            kind = type_node.id if isinstance(type_node, ast.Name) and type_node.id in ("int", "float") else "str"
            default = _literal(keywords["default"]) if "default" in keywords else None
        choices = _literal(keywords["choices"]) if "choices" in keywords else None
        found[name] = ReleaseArg(name, kind, default, tuple(choices) if isinstance(choices, list) else None,
                                 str(_literal(keywords["help"]) or "") if "help" in keywords else "")
    if not found:
        raise BridgeError(f"{path}: no parser.add_argument(...) found: not SCUBA's args.py")
    return found


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def import_release(root: Path, module: str) -> ModuleType:
    """``module`` (``agents.uitars15_v1``) of the checkout at ``root``, imported in place."""
    top = module.split(".", 1)[0]
    with _IMPORT_LOCK:
        if str(root) not in sys.path:
            sys.path.append(str(root))
        present = sys.modules.get(top)
        if present is not None and not _inside(present, root):
            raise BridgeError(f"scuba: a package {top!r} is already imported from {_where(present)}, so SCUBA's "
                              f"{root / top} cannot be: uninstall the distribution that installs {top!r} (or run "
                              "in an environment without it)")
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            missing = exc.name or str(exc)
            if missing == module or missing.startswith(top + ".") or missing == top:
                raise BridgeError(f"scuba: {module} is not in {root} ({exc}): is it a complete checkout of SCUBA's "
                                  "release?") from None
            raise BridgeError(f"scuba: {module} of {root} needs the module {missing!r}, which is not installed: "
                              "pip install -e '.[scuba-agents]'") from None
        except Exception as exc:
            raise BridgeError(f"scuba: importing {module} from {root} raised {type(exc).__name__}: {exc}") from None
    if not _inside(loaded, root):
        raise BridgeError(f"scuba: {module} was found at {_where(loaded)}, not in {root}: another installed package "
                          f"named {top!r} comes first on sys.path; uninstall it")
    return loaded


def _inside(module: ModuleType, root: Path) -> bool:
    where = _where(module)
    return where.startswith(str(root) + os.sep)


def _where(module: ModuleType) -> str:
    file = getattr(module, "__file__", None)
    if isinstance(file, str):
        return os.path.abspath(file)
    paths = list(getattr(module, "__path__", []) or [])
    return os.path.abspath(str(paths[0])) if paths else "?"
