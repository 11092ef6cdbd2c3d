"""What CI runs and what only a full run does.

CI (``scripts/test.sh``) runs every test, but the expensive end-to-end checks take a sample: the first task of
some templates, one task per program, one vendor of two. ``PYTEST_CUA_FULL=1`` makes it a full run: every
sample becomes its whole set and the tests marked ``full`` (a second variant of a path CI already proves end to
end) run instead of being skipped. A full run takes about an hour on two cores.
"""

from __future__ import annotations

import os

#: the environment variable that makes a run full (xdist workers and inner runs inherit it)
FULL_ENV = "PYTEST_CUA_FULL"


def full() -> bool:
    """Whether this is a full run (``PYTEST_CUA_FULL=1``)."""
    value = os.environ.get(FULL_ENV, "").strip().lower()
    if value not in ("", "0", "1", "true", "false", "yes", "no"):
        raise ValueError(f"{FULL_ENV}={value!r}: expected 1 (a full run) or 0")
    return value in ("1", "true", "yes")


def full_or(name: str) -> bool:
    """Whether a sample named by its own variable (``name=all``) or the full run asks for the whole set."""
    return full() or os.environ.get(name, "").strip() == "all"


def in_ci() -> bool:
    """Whether CI is set (``CI=true``): what the install scripts provide (dockerd, Chromium, QEMU) must then be
    there, and its absence is a failure instead of a skip."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")
