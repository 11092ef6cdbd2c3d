"""The two inputs of a comparison: a run's ``summary.json``, loaded and checked record by record.

``load_summary`` reads one (a file, or the reports folder that holds it); anything that cannot be compared is
a ``CompareError`` naming the file, the record and the field.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping

from pytest_cua.results.summary import OUTCOMES, task_key  # a task's identity across runs: suite/id


class CompareError(ValueError):
    """A summary that cannot be compared: missing, unreadable, bad JSON, or not a pytest-cua summary."""


def load_summary(path: str | Path) -> dict[str, Any]:
    """The parsed ``summary.json`` at ``path`` (or in the folder ``path``); raises CompareError naming it."""
    path = Path(path)
    if path.is_dir() and (path / "summary.json").is_file():
        path = path / "summary.json"
    if not path.exists():
        raise CompareError(f"{path}: no such file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CompareError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CompareError(f"{path}: not a text file") from None
    except json.JSONDecodeError as exc:
        raise CompareError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
        raise CompareError(f"{path}: not a pytest-cua summary (no \"tasks\" list)")
    check_summary(data, str(path))
    return data


def check_summary(data: Mapping[str, Any], source: str) -> None:
    """Every record a task record with usable values; raises CompareError naming ``source``, the record and
    the field: an unknown outcome, a score, cost or step count that is not a finite number, a trial that is
    not a whole number, the same task and trial twice, a ``run`` that is not an object."""
    if data.get("run") is not None and not isinstance(data.get("run"), Mapping):
        raise CompareError(f"{source}: \"run\" is not an object")
    seen: dict[tuple[str, int], int] = {}
    for index, record in enumerate(data["tasks"]):
        where = f"{source}: tasks[{index}]"
        if not isinstance(record, Mapping) or "id" not in record or "outcome" not in record:
            raise CompareError(f"{where} is not a task record (needs \"id\" and \"outcome\")")
        if record["outcome"] not in OUTCOMES:
            raise CompareError(f"{where}.outcome is {record['outcome']!r}, not one of {', '.join(OUTCOMES)}")
        for name in ("score", "cost_usd", "steps"):
            value = record.get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not math.isfinite(value)):
                raise CompareError(f"{where}.{name} is {value!r}, not a finite number")
        trial = record.get("trial")
        if trial is not None and (isinstance(trial, bool) or not isinstance(trial, int) or trial < 1):
            raise CompareError(f"{where}.trial is {trial!r}, not a whole number from 1")
        key = (task_key(record), int(trial or 1))
        if key in seen:
            raise CompareError(f"{where}: task {key[0]} trial {key[1]} is also tasks[{seen[key]}] (one record "
                               f"per task and trial)")
        seen[key] = index
