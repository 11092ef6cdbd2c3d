"""Reading a JSON file named by a command-line option, with errors that name the option and the path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def load_option_json(path: str | Path, option: str, error: type[Exception] = ValueError) -> Any:
    """The parsed content of ``path``; an unreadable file or bad JSON raises ``error`` naming ``option``."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{option} {path}: cannot be read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise error(f"{option} {path}: not valid JSON: {exc.msg} at line {exc.lineno}") from None
