"""What every ProSoft evaluator needs of a task's artifacts: the saved file, or a missed milestone saying that
the agent did not save it (never an error), and text with its white space squashed for comparisons."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

Check = tuple[str, Callable[[], None]]
"""One milestone of an evaluator: its label and the check (an AssertionError is a missed milestone)."""


def artifact(ctx: Any, name: str) -> Path:
    """The host path of artifact ``name``; an AssertionError (a missed milestone) when it was not produced."""
    path = ctx.artifacts.get(name)
    assert path is not None and Path(path).is_file(), (
        f"artifact {name!r} was not produced (the file was not saved where the task asks)")
    return Path(path)


def squash(text: str) -> str:
    """``text`` with every run of white space as one space, stripped."""
    return re.sub(r"\s+", " ", text).strip()
