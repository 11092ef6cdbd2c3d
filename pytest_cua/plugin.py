"""pytest-cua's pytest plugin: options, ini keys, markers and hook registration (being built)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("cua", "computer-use agent benchmarks (pytest-cua)")
