"""A small agent of OSWorld's convention, as a team would write one: it knows nothing of pytest-cua.

It asks an OpenAI-compatible chat endpoint (the ``openai`` SDK; its base URL from ``base_url`` or, as the SDK
does, ``OPENAI_BASE_URL``) for the next step given the screenshot (and the accessibility tree when its
``observation_type`` has one), keeps the last ``max_trajectory_length`` steps in the prompt, and returns the
model's text and the code blocks of its answer: pyautogui code, or ``WAIT`` / ``DONE`` / ``FAIL``.
"""

from __future__ import annotations

import base64
import logging
import re
from typing import Any

import openai

SYSTEM = """You control a computer with Python's pyautogui, one step at a time. You see a screenshot of a
{width}x{height} screen after every step. Think briefly, then answer with one ```python block of pyautogui code
(for example pyautogui.click(100, 200) or pyautogui.write('text')). When the task is done answer ```DONE```;
when it cannot be done, ```FAIL```; to wait for the screen, ```WAIT```."""
SPECIAL = ("WAIT", "DONE", "FAIL")
_BLOCK = re.compile(r"```(?:[A-Za-z0-9_+-]*\n)?(.*?)```", re.S)


class CodeAgent:
    """``predict(instruction, obs) -> (response, actions)`` over an OpenAI-compatible chat model."""

    def __init__(self, model: str = "gpt-4.1", max_tokens: int = 1000, temperature: float = 0.0,
                 observation_type: str = "screenshot", max_trajectory_length: int = 2, screen_width: int = 1920,
                 screen_height: int = 1080, base_url: str | None = None, api_key: str | None = None) -> None:
        if observation_type not in ("screenshot", "screenshot_a11y_tree"):
            raise ValueError(f"observation_type {observation_type!r}: this agent reads screenshot or "
                             "screenshot_a11y_tree")
        self.model = model
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.observation_type = observation_type
        self.max_trajectory_length = max_trajectory_length
        self.screen = (screen_width, screen_height)
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key)
        self.logger = logging.getLogger("example.osworld.agent")
        self.history: list[tuple[str, str]] = []  # (screenshot as base64, the model's answer)

    def reset(self, _logger: Any = None) -> None:
        self.history = []
        if _logger is not None:
            self.logger = _logger

    def predict(self, instruction: str, obs: dict[str, Any]) -> tuple[str, list[str]]:
        shot = base64.b64encode(obs["screenshot"]).decode("ascii")
        system = SYSTEM.format(width=self.screen[0], height=self.screen[1]) + f"\nYour task: {instruction}"
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        kept = self.history[-self.max_trajectory_length:] if self.max_trajectory_length else []
        for old_shot, answer in kept:
            messages.append(self._user("The screen before your step.", old_shot))
            messages.append({"role": "assistant", "content": answer})
        text = "The screen now. What is the next step?"
        if self.observation_type == "screenshot_a11y_tree" and obs.get("accessibility_tree"):
            text += "\nAccessibility tree:\n" + str(obs["accessibility_tree"])
        messages.append(self._user(text, shot))
        reply = self.client.chat.completions.create(model=self.model, messages=messages,  # type: ignore[arg-type]
                                                    max_tokens=self.max_tokens, temperature=self.temperature)
        response = reply.choices[0].message.content or ""
        self.logger.info("response: %s", response)
        self.history.append((shot, response))
        return response, parse_code(response)

    @staticmethod
    def _user(text: str, shot: str) -> dict[str, Any]:
        return {"role": "user", "content": [
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{shot}", "detail": "high"}}]}


def parse_code(response: str) -> list[str]:
    """The code blocks of an answer (a bare WAIT / DONE / FAIL too); a block ending in one is split."""
    if response.strip() in SPECIAL:
        return [response.strip()]
    out: list[str] = []
    for block in _BLOCK.findall(response):
        lines = block.strip().splitlines()
        if lines and lines[-1].strip() in SPECIAL and len(lines) > 1:
            out += ["\n".join(lines[:-1]), lines[-1].strip()]
        elif block.strip():
            out.append(block.strip())
    return out
