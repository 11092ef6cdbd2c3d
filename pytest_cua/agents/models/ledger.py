"""The run's cost ledger, shared by the xdist workers of one machine (separate processes).

The ledger is a JSON file::

    {"total_usd": 1.234, "tasks": {"<task id>": 0.5, ...}, "workers": {"gw0": 0.7, ...}}

Every read-modify-write holds an exclusive ``fcntl.flock`` on the sibling ``<name>.lock`` file, and the file
is replaced atomically, so readers never see half a write. Amounts are kept to the nano-dollar, which makes
the total independent of the order in which workers add.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

DIGITS = 9  # nano-dollars


class LedgerError(RuntimeError):
    """A ledger file that cannot be read or written."""


@dataclass
class _State:
    total_usd: float = 0.0
    tasks: dict[str, float] = field(default_factory=dict)
    workers: dict[str, float] = field(default_factory=dict)


class CostLedger:
    """Spend of the whole run, per task and per worker, against an optional cap in USD."""

    def __init__(self, path: Path, cap_usd: float | None) -> None:
        if cap_usd is not None and not (_is_amount(cap_usd) and cap_usd >= 0):
            raise ValueError(f"cost cap must be a non-negative number of dollars, got {cap_usd!r}")
        self.path = Path(path)
        self.cap_usd = cap_usd
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def add(self, usd: float, *, task_id: str, worker: str) -> float:
        """Record ``usd`` spent on ``task_id`` by ``worker``; returns the run total after adding."""
        if not (_is_amount(usd) and usd >= 0):
            raise ValueError(f"cost must be a non-negative number of dollars, got {usd!r}")
        amount = round(usd, DIGITS)
        with self._locked(fcntl.LOCK_EX):
            state = self._read()
            state.total_usd = round(state.total_usd + amount, DIGITS)
            for table, key in ((state.tasks, task_id), (state.workers, worker)):
                table[key] = round(table.get(key, 0.0) + amount, DIGITS)
            self._write(state)
        return state.total_usd

    def total(self) -> float:
        """The run's spend so far."""
        with self._locked(fcntl.LOCK_SH):
            return self._read().total_usd

    def exhausted(self) -> bool:
        """Whether a cap is set and the spend has reached it."""
        return self.cap_usd is not None and self.total() >= self.cap_usd

    def entries(self) -> dict[str, float]:
        """Spend per task id."""
        with self._locked(fcntl.LOCK_SH):
            return dict(self._read().tasks)

    @contextmanager
    def _locked(self, operation: int) -> Iterator[None]:
        try:
            lock = open(self.lock_path, "a")
        except OSError as exc:
            raise LedgerError(f"{self.lock_path}: cannot open the ledger's lock file: {exc}") from exc
        with lock:
            fcntl.flock(lock.fileno(), operation)
            try:
                yield
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def _read(self) -> _State:
        """The ledger's state (empty when the file is missing or empty); call under the lock."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        except OSError as exc:
            raise LedgerError(f"{self.path}: cannot read the cost ledger: {exc}") from exc
        if not text.strip():
            return _State()
        try:
            state = json.loads(text)
        except ValueError as exc:
            raise LedgerError(f"{self.path}: the cost ledger is not valid JSON: {exc}") from exc
        return self._checked(state)

    def _checked(self, state: object) -> _State:
        if not isinstance(state, dict):
            raise LedgerError(f"{self.path}: the cost ledger must be a JSON object, got {type(state).__name__}")
        if not _is_amount(state.get("total_usd")):
            raise LedgerError(f"{self.path}: total_usd: expected a number, got {state.get('total_usd')!r}")
        for table in ("tasks", "workers"):
            entries = state.get(table)
            if not isinstance(entries, dict):
                raise LedgerError(f"{self.path}: {table}: expected an object, got {entries!r}")
            for key, value in entries.items():
                if not _is_amount(value):
                    raise LedgerError(f"{self.path}: {table}.{key}: expected a number, got {value!r}")
        return _State(float(state["total_usd"]), dict(state["tasks"]), dict(state["workers"]))

    def _write(self, state: _State) -> None:
        """Replace the file atomically; call under the exclusive lock."""
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            text = json.dumps({"total_usd": state.total_usd, "tasks": state.tasks, "workers": state.workers},
                              indent=1, sort_keys=True)
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError as exc:
            raise LedgerError(f"{self.path}: cannot write the cost ledger: {exc}") from exc


def _is_amount(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
