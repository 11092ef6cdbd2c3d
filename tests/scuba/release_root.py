"""Where the tests find SCUBA's release, and what a test that needs it does when it is not there.

One variable, ``$PYTEST_CUA_SCUBA_ROOT`` (:data:`VARIABLE`), names the release (a SCUBA checkout: ``data/``,
``scuba/``); without it the release is ``<repository>/../shared/scuba/release`` (:data:`DEFAULT`, found from this
file's place, so it holds wherever the repository is). SCUBA's shared folder (:data:`SHARED`: ``release/``,
``prerequisites/`` and ``sample_tasks.json`` side by side) is the release's parent folder.

A test that needs the release and does not find it is skipped, the reason naming the path and the variable;
when the environment variable ``CI`` is set (``true``, ``1`` or ``yes``, as ``tests/desktop/conftest.py`` reads
it for dockerd) it fails with that message instead, so that a CI run never passes with the parity and release
tests skipped unseen:

- :func:`require_release` in a test, a fixture or at the top of a module (the whole module then skips, or
  fails to collect under CI);
- :func:`needs_release` as a decorator of a test function (a parametrized one included: its parameters may come
  from the release and be empty without it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, NoReturn, TypeVar

import pytest

VARIABLE = "PYTEST_CUA_SCUBA_ROOT"
REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "scuba"
DEFAULT = SHARED / "release"
ZERO_SHOT = "data/test_zero_shot.json"
DEMO_AUG = "data/test_demo_aug.json"

F = TypeVar("F", bound=Callable[..., Any])


def release_root() -> Path:
    """``$PYTEST_CUA_SCUBA_ROOT``, else ``<repository>/../shared/scuba/release``."""
    given = os.environ.get(VARIABLE, "").strip()
    return Path(given).expanduser() if given else DEFAULT


def shared_root() -> Path:
    """SCUBA's shared folder: the release's parent (``prerequisites/`` and ``sample_tasks.json`` beside it)."""
    return release_root().parent


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing(*needed: str, root: Path | None = None) -> str | None:
    """Why the release cannot be used (None when every ``needed`` path, relative to the release, is there;
    by default ``data/test_zero_shot.json``). With ``root``, the paths are relative to that folder (SCUBA's
    shared folder, say)."""
    base = release_root() if root is None else root
    absent = [rel for rel in (needed or (ZERO_SHOT,)) if not (base / rel).exists()]
    if not absent:
        return None
    what = "SCUBA release" if root is None else "SCUBA reference copy"
    return (f"no {what} at {base} ({', '.join(absent)} missing); set ${VARIABLE} to SCUBA's release, "
            f"its shared folder is the parent (default {DEFAULT})")


def _refuse(reason: str) -> NoReturn:
    if in_ci():
        pytest.fail(f"CI is set and {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def require_release(*needed: str, root: Path | None = None) -> Path:
    """The release's folder; skips (fails under CI) when one of ``needed`` is missing from it."""
    reason = missing(*needed, root=root)
    if reason is not None:
        _refuse(reason)
    return release_root() if root is None else root


def require_shared(*needed: str) -> Path:
    """SCUBA's shared folder (the release's parent); skips (fails under CI) when one of ``needed`` is missing
    from it."""
    return require_release(*needed, root=shared_root())


def needs_release(*needed: str) -> Callable[[F], F]:
    """A decorator: the test as it is when the release has ``needed``; else a test of the same name that is
    skipped with the reason, or under CI fails with it. That test takes no parameters and no fixtures: an empty
    parameter set from the missing release cannot turn it into a skip of pytest's own, and no fixture is set
    up for nothing."""
    def decorate(test: F) -> F:
        reason = missing(*needed)
        if reason is None:
            return test

        def refused() -> None:
            _refuse(reason)

        refused.__name__, refused.__qualname__, refused.__doc__ = test.__name__, test.__qualname__, test.__doc__
        refused.__module__ = test.__module__
        marks = [m for m in getattr(test, "pytestmark", []) if m.name not in ("parametrize", "usefixtures")]
        refused.pytestmark = marks  # type: ignore[attr-defined]  # its other marks (browser, slow) stay
        return refused  # type: ignore[return-value]
    return decorate
