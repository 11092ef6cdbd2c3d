"""pytest-cua: computer-use agent benchmarks as ordinary pytest tests."""

from __future__ import annotations

__version__ = "0.1.0"
