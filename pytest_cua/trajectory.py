"""The per-step record of an episode: JSON plus images under reports/trajectories/<run>/<task id>/.

First version written by the core; the browser work extends it (Allure, redaction). The episode loop calls
``TrajectoryRecorder.record_step`` once per agent step and ``finish`` once at the end.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_cua.actions import Action, ActionResult
from pytest_cua.agents.base import Usage
from pytest_cua.observations import Observation


@dataclass
class StepRecord:
    index: int
    observation: Observation
    actions: list[Action]
    results: list[ActionResult]
    reasoning: str = ""
    raw: str | None = None
    usage: Usage = field(default_factory=Usage)
    agent_s: float = 0.0
    env_s: float = 0.0
    started_at: float = field(default_factory=time.time)


class TrajectoryRecorder:
    """Writes one task's trajectory. ``steps`` keeps the records in memory for reports of this run."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.steps: list[StepRecord] = []

    def record_step(self, step: StepRecord) -> None:
        self.steps.append(step)

    def finish(self, summary: dict[str, Any]) -> Path | None:
        if self.directory is None:
            return None
        self.directory.mkdir(parents=True, exist_ok=True)
        steps = []
        for s in self.steps:
            entry: dict[str, Any] = {
                "index": s.index, "reasoning": s.reasoning, "actions": [a.to_dict() for a in s.actions],
                "results": [r.to_dict() for r in s.results], "observation": s.observation.text_parts(),
                "tokens_in": s.usage.tokens_in, "tokens_out": s.usage.tokens_out, "cost_usd": s.usage.cost_usd,
                "agent_s": round(s.agent_s, 4), "env_s": round(s.env_s, 4), "started_at": s.started_at,
            }
            if s.observation.screenshot:
                name = f"step_{s.index:03d}.png"
                (self.directory / name).write_bytes(s.observation.screenshot)
                entry["screenshot"] = name
            steps.append(entry)
        path = self.directory / "trajectory.json"
        path.write_text(json.dumps({"summary": summary, "steps": steps}, indent=1, default=str))
        return path
