"""The per-step record of an episode: JSON plus images under reports/trajectories/<run>/<task id>/.

The episode loop calls ``TrajectoryRecorder.record_step`` once per agent step and ``finish`` once at the end.
Images are written as the steps come (``step_001.png``, ``step_001_som.png``), each step is appended to
``steps.jsonl`` (so a crashed run still leaves its steps), and ``finish`` writes ``trajectory.json``::

    {"format": 1, "summary": {...}, "steps": [{"index", "observation": {url, title, tabs, axtree, dom, ...},
     "screenshot": "step_001.png", "som": "step_001_som.png", "reasoning", "raw", "actions": [...],
     "results": [...], "tokens_in", "tokens_out", "cost_usd", "agent_s", "env_s", "started_at"}]}

Everything textual goes through ``pytest_cua.redaction`` first: no token, password or session id reaches disk.
``load_trajectory`` reads a trajectory back; ``actions_from_trajectory`` / ``turns_from_trajectory`` give its
actions for the replay agent.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pytest_cua.actions import Action, ActionError, ActionResult
from pytest_cua.agents.base import Turn, Usage
from pytest_cua.observations import Observation
from pytest_cua.redaction import redact, redact_data

FORMAT_VERSION = 1
TRAJECTORY_FILE = "trajectory.json"
STEPS_FILE = "steps.jsonl"


@dataclass(kw_only=True)
class StepRecord(Turn):
    """One trajectory step: the ``Turn`` played (the agent's, or a human's during a takeover: ``extra.by``),
    with the observation it was chosen on, what came of its actions and the time it took. ``to_dict`` is the
    step's JSON form; ``LoadedStep.from_dict`` reads it back."""

    index: int
    observation: Observation
    results: list[ActionResult]
    agent_s: float = 0.0
    env_s: float = 0.0
    started_at: float = field(default_factory=time.time)
    error: str | None = None  # e.g. the agent's output could not be parsed

    @classmethod
    def of_turn(cls, turn: Turn, *, extra: Mapping[str, Any] | None = None, **step: Any) -> "StepRecord":
        """``turn`` as a step; ``step`` gives this class's own fields and ``extra`` is added to the turn's.
        The turn's actions, extra and images are copied, so the agent may reuse them."""
        return cls(actions=list(turn.actions), reasoning=turn.reasoning, usage=turn.usage, raw=turn.raw,
                   extra={**turn.extra, **(extra or {})}, images=dict(turn.images), **step)

    def to_dict(self, *, screenshot: str | None = None, som: str | None = None,
                images: dict[str, str] | None = None) -> dict[str, Any]:
        """The step as (redacted) JSON data; image file names are given by the writer."""
        entry: dict[str, Any] = {
            "index": self.index,
            "observation": self.observation.text_parts(),
            "reasoning": self.reasoning,
            "raw": self.raw,
            "actions": [a.to_dict() for a in self.actions],
            "results": [r.to_dict() for r in self.results],
            "tokens_in": self.usage.tokens_in, "tokens_out": self.usage.tokens_out,
            "cost_usd": self.usage.cost_usd, "usage": self.usage.to_dict(),
            "agent_s": round(self.agent_s, 4), "env_s": round(self.env_s, 4), "started_at": self.started_at,
        }
        if self.error:
            entry["error"] = self.error
        if self.extra:
            entry["extra"] = self.extra
        if screenshot:
            entry["screenshot"] = screenshot
        if som:
            entry["som"] = som
        if images:
            entry["images"] = images
        return redact_data(entry)


class TrajectoryRecorder:
    """Writes one task's trajectory to ``directory`` (nothing is written when it is None).

    ``steps`` keeps the records in memory for this run's reports (Allure)."""

    def __init__(self, directory: Path | str | None, *, keep_images_in_memory: bool = True) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.steps: list[StepRecord] = []
        self.entries: list[dict[str, Any]] = []
        self.keep_images_in_memory = keep_images_in_memory
        self.path: Path | None = None
        self.summary: dict[str, Any] = {}
        self._prepared = False

    def _prepare(self) -> Path:
        assert self.directory is not None
        if not self._prepared:
            self.directory.mkdir(parents=True, exist_ok=True)
            for stale in (self.directory / STEPS_FILE, self.directory / TRAJECTORY_FILE):
                if stale.exists():
                    stale.unlink()
            self._prepared = True
        return self.directory

    def record_step(self, step: StepRecord) -> None:
        """Keep the step; write its images and append it to steps.jsonl."""
        self.steps.append(step)
        shot = som = None
        extra_images: dict[str, str] = {}
        if self.directory is not None:
            directory = self._prepare()
            if step.observation.screenshot:
                shot = f"step_{step.index:03d}.png"
                (directory / shot).write_bytes(step.observation.screenshot)
            if step.observation.som:
                som = f"step_{step.index:03d}_som.png"
                (directory / som).write_bytes(step.observation.som)
            for name, data in step.images.items():
                extra_images[name] = f"step_{step.index:03d}_{name}.{_image_ext(data)}"
                (directory / extra_images[name]).write_bytes(data)
        entry = step.to_dict(screenshot=shot, som=som, images=extra_images)
        self.entries.append(entry)
        if self.directory is not None:
            with open(self.directory / STEPS_FILE, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry, default=str, ensure_ascii=False) + "\n")
        if not self.keep_images_in_memory and self.directory is not None:
            step.observation.screenshot = None
            step.observation.som = None

    def finish(self, summary: dict[str, Any]) -> Path | None:
        """Write trajectory.json (redacted) and return its path (None without a directory)."""
        self.summary = redact_data(summary)
        if self.directory is None:
            return None
        directory = self._prepare()
        data = {"format": FORMAT_VERSION, "summary": redact_data(summary), "steps": self.entries}
        path = directory / TRAJECTORY_FILE
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=1, default=lambda o: redact(str(o)), ensure_ascii=False),
                       encoding="utf-8")
        tmp.replace(path)
        self.path = path
        return path


def _image_ext(data: bytes) -> str:
    return "jpg" if data[:3] == b"\xff\xd8\xff" else "png"


# --- reading back ----------------------------------------------------------------------------------------

class TrajectoryError(Exception):
    """A trajectory that cannot be read; the message names the file and the step."""


@dataclass
class LoadedStep:
    """A step read back from a trajectory file: ``StepRecord.to_dict`` parsed (``from_dict``); the observation
    and the results stay JSON data, the images are file paths."""

    index: int
    observation: dict[str, Any]
    actions: list[Action]
    results: list[dict[str, Any]]
    reasoning: str = ""
    raw: str | None = None
    screenshot: Path | None = None
    som: Path | None = None
    usage: Usage = field(default_factory=Usage)
    agent_s: float = 0.0
    env_s: float = 0.0
    started_at: float = 0.0
    error: str | None = None

    @classmethod
    def from_dict(cls, entry: dict[str, Any], *, directory: Path, position: int) -> "LoadedStep":
        """One entry of a trajectory's ``steps`` (``position``: its place, the index when it has none); image
        names are resolved in ``directory``. Raises ActionError for an action that cannot be read."""
        actions = [Action.from_dict(a) for a in entry.get("actions", [])]
        shot, som = entry.get("screenshot"), entry.get("som")
        # the step's own figures are the unrounded ones; "usage" adds the token details (older files lack it)
        figures: dict[str, Any] = {k: entry[k] for k in ("tokens_in", "tokens_out", "cost_usd") if k in entry}
        return cls(
            index=int(entry.get("index", position)), observation=entry.get("observation", {}), actions=actions,
            results=entry.get("results", []), reasoning=entry.get("reasoning", ""), raw=entry.get("raw"),
            screenshot=directory / shot if shot else None, som=directory / som if som else None,
            usage=Usage.from_dict({**(entry.get("usage") or {}), **figures}), agent_s=entry.get("agent_s", 0.0),
            env_s=entry.get("env_s", 0.0), started_at=entry.get("started_at", 0.0), error=entry.get("error"))

    @property
    def tokens_in(self) -> int:
        return self.usage.tokens_in

    @property
    def tokens_out(self) -> int:
        return self.usage.tokens_out

    @property
    def cost_usd(self) -> float:
        return self.usage.cost_usd

    def screenshot_bytes(self) -> bytes | None:
        return self.screenshot.read_bytes() if self.screenshot is not None and self.screenshot.exists() else None


@dataclass
class Trajectory:
    path: Path
    summary: dict[str, Any]
    steps: list[LoadedStep]

    @property
    def actions(self) -> list[Action]:
        return [a for s in self.steps for a in s.actions]


def _resolve(path: str | Path) -> Path:
    p = Path(path)
    if p.is_dir():
        if (p / TRAJECTORY_FILE).exists():
            return p / TRAJECTORY_FILE
        if (p / STEPS_FILE).exists():
            return p / STEPS_FILE
        raise TrajectoryError(f"{p}: no {TRAJECTORY_FILE} or {STEPS_FILE} in this folder")
    if not p.exists():
        raise TrajectoryError(f"{p}: no such trajectory file")
    return p


def load_trajectory(path: str | Path) -> Trajectory:
    """Read a trajectory written by ``TrajectoryRecorder`` (its folder, trajectory.json or steps.jsonl)."""
    file = _resolve(path)
    try:
        if file.name == STEPS_FILE:
            raw_steps = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
            data: dict[str, Any] = {"summary": {}, "steps": raw_steps}
        else:
            data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TrajectoryError(f"{file}: cannot be read: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise TrajectoryError(f"{file}: not a trajectory (expected an object with 'steps')")
    steps = []
    for i, entry in enumerate(data["steps"]):
        try:
            steps.append(LoadedStep.from_dict(entry, directory=file.parent, position=i))
        except ActionError as exc:
            raise TrajectoryError(f"{file}: step {entry.get('index', i)}: {exc}") from None
    return Trajectory(path=file, summary=data.get("summary", {}), steps=steps)


def turns_from_trajectory(path: str | Path) -> list[list[Action]]:
    """The actions of a recorded trajectory, grouped by step as the agent issued them."""
    return [list(s.actions) for s in load_trajectory(path).steps if s.actions]


def actions_from_trajectory(path: str | Path) -> list[Action]:
    """Every action of a recorded trajectory in order, for the replay agent (terminal action included)."""
    return [a for turn in turns_from_trajectory(path) for a in turn]
