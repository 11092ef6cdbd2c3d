"""A run's state on disk, so that no result is lost: ``reports/runs/<run id>/``.

- ``records/<key>.json``: the final record of every test that ended (one file per test id, the last attempt
  wins), written by the process that ran it the moment its teardown report is made: a run killed with
  SIGKILL keeps every record it finished.
- ``run.json``: the settings a resumed session must share with the run (agent, trials).
- ``started/<key>.json``: what a worker is about to run (the task's fields, the worker, the trajectory
  folder), written when a task's setup starts: the controller reads it to make the record of a task whose
  worker died under it (error kind ``worker_crash``).
- ``collected.json``: the task tests the run's sessions collected (after ``-k``/``-m``), so that a summary can
  say how many have no final record (``complete``); ``run.json`` also lists the run's sessions (start, wall
  time), so that a resumed run's ``started`` and ``wall_s`` cover them all.

``--cua-resume RUN_ID`` reads ``records/`` to run only what has no final record, and merges the rest into
the summary. Files are written whole (temporary file, then rename), so a reader never sees half a record.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

import pytest

from pytest_cua.episode.settings import SETTINGS_KEY

_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _record_key(nodeid: str) -> str:
    """A file name for a test id: readable, and unique through a hash of the whole id."""
    tail = nodeid.rsplit("::", 1)[-1]
    return f"{_SAFE.sub('_', tail)[:80]}-{hashlib.sha1(nodeid.encode()).hexdigest()[:12]}"


class RunStore:
    """The folder of one run: ``RunStore(reports_dir, run_id)``."""

    def __init__(self, reports_dir: Path, run_id: str) -> None:
        self.root = Path(reports_dir) / "runs" / run_id
        self.run_id = run_id

    @property
    def records_dir(self) -> Path:
        return self.root / "records"

    @property
    def started_dir(self) -> Path:
        return self.root / "started"

    def exists(self) -> bool:
        return self.records_dir.is_dir() or self.started_dir.is_dir()

    def write_record(self, record: Mapping[str, Any]) -> Path:
        return _write_json(self.records_dir / f"{_record_key(str(record['nodeid']))}.json", record)

    def write_started(self, nodeid: str, info: Mapping[str, Any]) -> Path:
        return _write_json(self.started_dir / f"{_record_key(nodeid)}.json", {"nodeid": nodeid, **info})

    def started(self, nodeid: str) -> dict[str, Any] | None:
        """What the worker wrote when it started ``nodeid`` (None when nothing was written)."""
        return _read_json(self.started_dir / f"{_record_key(nodeid)}.json")

    def note_settings(self, settings: Mapping[str, Any]) -> None:
        """Write ``run.json`` with the first record (a session that ran no task leaves no run folder)."""
        if not (self.root / "run.json").exists():
            _write_json(self.root / "run.json", settings)

    def read_settings(self) -> dict[str, Any]:
        """The settings the run was started with (empty when it wrote none)."""
        return _read_json(self.root / "run.json") or {}

    def note_session(self, started: float, finished: float) -> list[dict[str, float]]:
        """Add a session (its start and end, epoch seconds) to ``run.json``; returns every session of the run."""
        data = self.read_settings()
        sessions = [s for s in data.get("sessions") or [] if isinstance(s, dict) and s.get("started") != started]
        sessions.append({"started": started, "finished": finished, "wall_s": round(finished - started, 2)})
        _write_json(self.root / "run.json", {**data, "sessions": sessions})
        return sessions

    def note_collected(self, nodeids: Iterable[str]) -> None:
        """Add task test ids to ``collected.json`` (every process that collects writes the same ids)."""
        ids = set(nodeids)
        if not ids:
            return
        known = set(self.collected())
        if ids <= known:
            return
        _write_json(self.root / "collected.json", {"nodeids": sorted(known | ids)})

    def collected(self) -> list[str]:
        """The task test ids the run's sessions collected (empty when none wrote them)."""
        data = _read_json(self.root / "collected.json") or {}
        ids = data.get("nodeids")
        return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []

    def records(self) -> dict[str, dict[str, Any]]:
        """Every final record of the run by test id. A file that cannot be read is skipped: its test has no
        final record and runs again on resume."""
        found: dict[str, dict[str, Any]] = {}
        if not self.records_dir.is_dir():
            return found
        for path in sorted(self.records_dir.glob("*.json")):
            record = _read_json(path)
            if record is not None and isinstance(record.get("nodeid"), str):
                found[record["nodeid"]] = record
        return found


#: set when the session was interrupted (Ctrl-C, ``pytest.exit``, quitting ``--pdb``): what fails to roll back
#: or close after it (Chromium died with the process group) is noted, not raised
INTERRUPTED_KEY = pytest.StashKey[str]()


#: set by the session's SIGINT handler the moment a Ctrl-C arrives: Python raises the KeyboardInterrupt wherever the
#: main thread is, and when that is a weakref callback or a ``__del__`` it is printed as "Exception ignored" and
#: lost; this flag is not, so the run still ends as an interrupt
SIGINT_KEY = pytest.StashKey[bool]()


def interrupted(config: pytest.Config) -> str | None:
    """Why the session was interrupted (None when it was not)."""
    return config.stash.get(INTERRUPTED_KEY, None) or ("KeyboardInterrupt" if sigint_seen(config) else None)


def sigint_seen(config: pytest.Config) -> bool:
    """Whether a Ctrl-C reached this process during the session (even one Python swallowed)."""
    return config.stash.get(SIGINT_KEY, False)


def run_store(config: pytest.Config) -> RunStore:
    """This run's folder on disk (the reports folder and run id of the run's settings)."""
    settings = config.stash[SETTINGS_KEY]
    return RunStore(settings.reports_dir, settings.run_id)


def _write_json(path: Path, data: Mapping[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, default=str), encoding="utf-8")
    tmp.replace(path)
    return path


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
