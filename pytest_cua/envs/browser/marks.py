"""Set-of-marks for the browser: the drawing is shared with the desktop and lives in ``pytest_cua.envs.marks``;
this name stays importable for the browser's callers."""

from __future__ import annotations

from pytest_cua.envs.marks import draw_marks

__all__ = ["draw_marks"]
