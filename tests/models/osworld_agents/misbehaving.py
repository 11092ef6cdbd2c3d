"""OSWorld-style agents that go wrong, with no model behind them: the bridge's error cases.

``Misbehaving`` reads its instruction: a task about Tobias Lindqvist makes it raise inside its own helper; any
other task gets an answer pytest-cua cannot carry out: a click, then ``pyautogui.locateOnScreen`` (none of it may
be carried out).
"""

from __future__ import annotations

from typing import Any

UNSUPPORTED = ["pyautogui.click(10, 10)", "pyautogui.locateOnScreen('save.png')"]


class Misbehaving:
    def __init__(self, observation_type: str = "screenshot") -> None:
        self.observation_type = observation_type
        self.resets: list[Any] = []

    def reset(self, runtime_logger: Any = None) -> None:
        self.resets.append(runtime_logger)

    def predict(self, instruction: str, obs: dict[str, Any]) -> tuple[str, list[Any]]:
        if "Tobias" in instruction:
            return "thinking", self._plan(obs)
        return "I will find the Save button by its picture.", list(UNSUPPORTED)

    def _plan(self, obs: dict[str, Any]) -> list[Any]:
        raise KeyError("the plan needs obs['window_title']")
