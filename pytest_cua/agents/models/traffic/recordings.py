"""The recording store on disk: one JSON file per exchange (``recording_document``, ``recording_name``), the
images beside them (``write_images``), files written atomically so several processes can record into one
directory, and the loading of a directory for replay (``Recording``, ``load_recordings``)."""

from __future__ import annotations

import json
import os
import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from pytest_cua.agents.models.traffic.credentials import Redact, redact_strings
from pytest_cua.agents.models.traffic.keys import Normalised
from pytest_cua.agents.models.traffic.protocol import FORMAT, RecordingError


@dataclass
class Recording:
    """One recorded exchange as loaded for replay."""

    file: Path
    key: str
    task: str | None
    step: str | None
    seq: int
    task_seq: int | None
    method: str
    path: str
    status: int
    headers: dict[str, str]
    body: bytes
    recorded_at: str
    trial: str | None = None  # the trial it was recorded in (None: recorded without --cua-trials)
    episode: str | None = None  # the episode it was recorded in (None: by an agent that named none)

    @property
    def order(self) -> tuple[int, str, str]:
        return (self.seq, self.recorded_at, self.file.name)


def load_recording(file: Path) -> Recording:
    """Parse one recording file; anything unusable raises :class:`RecordingError` naming the file."""
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RecordingError(f"pytest-cua model replay: {file}: cannot be read: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise RecordingError(f"pytest-cua model replay: {file}: not a valid recording (bad JSON: {exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise RecordingError(f"pytest-cua model replay: {file}: not a format-{FORMAT} recording (format {found!r})")
    try:
        request, response = doc["request"], doc["response"]
        if "body_text" in response:
            body = str(response["body_text"]).encode("utf-8")
        else:
            body = json.dumps(response["body"], ensure_ascii=False).encode("utf-8")
        task_seq = doc.get("task_seq")
        return Recording(
            file=file, key=str(doc["key"]), task=doc.get("task"), step=doc.get("step"), seq=int(doc["seq"]),
            task_seq=int(task_seq) if task_seq is not None else None, method=str(request["method"]).upper(),
            path=str(request["path"]), status=int(response["status"]), headers=dict(response.get("headers") or {}),
            body=body, recorded_at=str(doc.get("recorded_at", "")),
            trial=str(doc["trial"]) if doc.get("trial") is not None else None,
            episode=str(doc["episode"]) if doc.get("episode") is not None else None)
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordingError(f"pytest-cua model replay: {file}: incomplete recording ({type(exc).__name__}: "
                             f"{exc})") from None


def load_recordings(directory: Path) -> list[Recording]:
    if not directory.is_dir():
        raise RecordingError(f"pytest-cua model replay: recording directory {directory} does not exist")
    files = sorted(p for p in directory.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    return [load_recording(p) for p in files]


def write_atomic(path: Path, data: bytes) -> None:
    """Write through a uniquely named temporary file in the same directory and rename it into place."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "xb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def slug(text: str | None) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text or "untasked").strip("._")[:60] or "task"


def recording_document(*, key: str, task: str | None, step: str | None, seq: int, task_seq: int | None,
                       trial: str | None, episode: str, base_path: str, request: Normalised, status: int,
                       headers: dict[str, str], response: dict[str, Any]) -> dict[str, Any]:
    """A recording file's content (format ``FORMAT``); ``response`` is ``stored_response``'s body part."""
    return {
        "format": FORMAT, "key": key, "task": task, "step": step, "seq": seq, "task_seq": task_seq,
        "trial": trial, "episode": episode or None,
        "request": {"method": request.method, "base_path": base_path, "path": request.path,
                    "headers": request.headers, "body": request.body},
        "response": {"status": status, "headers": headers, **response},
        "recorded_at": datetime.now(timezone.utc).isoformat(timespec="microseconds"),
    }


def recording_name(task: str | None, trial: str | None, number: int, key: str) -> str:
    """A unique file name for a recording: task, trial, its number, the key's start, the process and a nonce."""
    return (f"{slug(task)}{f'-t{slug(trial)}' if trial else ''}-{number:04d}-{key[:12]}-"
            f"{os.getpid()}-{uuid.uuid4().hex[:8]}.json")


def stored_response(body: bytes, redact: Redact) -> dict[str, Any]:
    """``{"body": JSON}`` with strings redacted, else ``{"body_text": text}``."""
    try:
        parsed = json.loads(body) if body else None
    except (ValueError, UnicodeDecodeError):
        return {"body": None, "body_text": redact(body.decode("utf-8", errors="replace"))}
    return {"body": redact_strings(parsed, redact)}


def write_images(directory: Path, images: Mapping[str, tuple[str, bytes]]) -> None:
    """Store each image once, as ``directory/images/<sha256>.<ext>``."""
    if not images:
        return
    folder = directory / "images"
    folder.mkdir(exist_ok=True)
    for digest, (ext, data) in images.items():
        path = folder / f"{digest}.{ext}"
        if not path.exists():
            write_atomic(path, data)
