"""System prompts of the model-agent styles, kept as package data and versioned.

Each file starts with a ``version: N`` line; ``load_prompt(name)`` returns the text after it with its version
and the SHA-256 of the file, which the agent reports in ``summary.json`` (``agent.prompt``), so two runs can
tell whether they used the same prompt.

May import nothing of ``pytest_cua``: it reads its own package data only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    text: str
    sha256: str

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version, "sha256": self.sha256}

    def render(self, **values: str) -> str:
        out = self.text
        for key, value in values.items():
            out = out.replace("{" + key + "}", value)
        return out


def load_prompt(name: str) -> Prompt:
    raw = resources.files(__name__).joinpath(f"{name}.md").read_text(encoding="utf-8")
    first, _, body = raw.partition("\n")
    if not first.startswith("version:"):
        raise ValueError(f"prompt {name}.md: the first line must be 'version: N', got {first!r}")
    return Prompt(name=name, version=first.split(":", 1)[1].strip(), text=body.strip() + "\n",
                  sha256=hashlib.sha256(raw.encode("utf-8")).hexdigest())
