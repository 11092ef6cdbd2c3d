"""Human handlers for ``ask(question)``.

Resolved in this order: ``--cua-human FILE`` (scripted answers, for CI), then an interactive prompt on the
terminal when output capture is off (``-s``) and standard input is a terminal, else none (the agent is told
that no human is available).

The scripted file is JSON: ``{"<task id>": {"<question>": "<answer>", "*": "<answer to anything else>"}}``;
a top-level ``"*"`` entry answers for every task.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Protocol

from pytest_cua.jsonfile import load_option_json

if TYPE_CHECKING:
    from pytest_cua.tasks import Task


class HumanHandler(Protocol):
    def answer(self, task: "Task", question: str) -> str | None:
        """The human's answer, or None when there is none."""


class HumanFileError(ValueError):
    pass


class ScriptedHuman:
    """Answers from a file, by task id and question (exact text after trimming, or ``"*"``)."""

    def __init__(self, answers: Mapping[str, Mapping[str, str]], source: str = "<answers>") -> None:
        self.answers = answers
        self.source = source

    @classmethod
    def from_file(cls, path: str | Path) -> "ScriptedHuman":
        path = Path(path)
        data = load_option_json(path, "--cua-human", HumanFileError)
        if not isinstance(data, dict):
            raise HumanFileError(f"--cua-human {path}: must be an object keyed by task id")
        for task_id, qa in data.items():
            if not isinstance(qa, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in qa.items()):
                raise HumanFileError(f"--cua-human {path}: entry {task_id!r} must map questions to answer strings")
        return cls(data, str(path))

    def answer(self, task: "Task", question: str) -> str | None:
        for key in (task.id, "*"):
            qa = self.answers.get(key)
            if qa is None:
                continue
            text = qa.get(question.strip())
            if text is None:
                text = qa.get("*")
            if text is not None:
                return text
        return None


class TerminalHuman:
    """Prompts on the terminal (only used with ``-s`` and a terminal on standard input)."""

    def __init__(self, config: Any) -> None:
        self.config = config

    def answer(self, task: "Task", question: str) -> str | None:
        capture = self.config.pluginmanager.getplugin("capturemanager")
        if capture is not None:
            capture.suspend_global_capture(in_=True)
        try:
            sys.stdout.write(f"\n[pytest-cua] task {task.id} asks: {question}\nyour answer (empty for none): ")
            sys.stdout.flush()
            line = sys.stdin.readline()
        finally:
            if capture is not None:
                capture.resume_global_capture()
        line = line.strip()
        return line or None


def resolve_human(config: Any) -> HumanHandler | None:
    path = config.getoption("cua_human", None)
    if path:
        return ScriptedHuman.from_file(path)
    interactive = (config.getoption("capture", "fd") == "no" and not hasattr(config, "workerinput")
                   and sys.stdin is not None and sys.stdin.isatty())
    return TerminalHuman(config) if interactive else None
