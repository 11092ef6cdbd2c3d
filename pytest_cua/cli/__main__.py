"""``python -m pytest_cua.cli``: the ``pytest-cua`` command."""

from __future__ import annotations

import sys

from pytest_cua.cli import main

sys.exit(main())
