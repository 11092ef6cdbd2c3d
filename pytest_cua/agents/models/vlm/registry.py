"""The grammars by name (``GRAMMARS``) and the grammar of a served model name (``grammar_for_model``)."""

from __future__ import annotations

import re

from pytest_cua.agents.models.vlm.grammar import Grammar
from pytest_cua.agents.models.vlm.opencua import OpenCUAGrammar
from pytest_cua.agents.models.vlm.qwen import QwenVLGrammar
from pytest_cua.agents.models.vlm.uitars import UITarsGrammar

GRAMMARS: dict[str, Grammar] = {g.name: g for g in (
    UITarsGrammar(),
    UITarsGrammar(name="ui-tars-1.0", coordinates="relative1000"),
    OpenCUAGrammar(),
    OpenCUAGrammar(name="opencua-relative", coordinates="relative"),
    QwenVLGrammar(),
)}

_MODEL_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"ui-?tars-?1[.-]5"), "ui-tars-1.5"),
    (re.compile(r"ui-?tars-(?:2b|7b|72b)"), "ui-tars-1.0"),
    (re.compile(r"opencua-(?:qwen2-|a3b)"), "opencua-relative"),
    (re.compile(r"opencua"), "opencua"),
    (re.compile(r"qwen2[.-]5-?vl"), "qwen2.5-vl"),
)


def grammar_for_model(model: str) -> Grammar:
    """The grammar of a served model name (``ByteDance-Seed/UI-TARS-1.5-7B``, ``opencua-7b``,
    ``Qwen/Qwen2.5-VL-72B-Instruct``); ``ValueError`` listing the known ones otherwise."""
    key = model.strip().lower().rsplit("/", 1)[-1].replace("_", "-")
    for pattern, name in _MODEL_RULES:
        if pattern.search(key):
            return GRAMMARS[name]
    raise ValueError(f"no text grammar for model {model!r}; known models: UI-TARS-1.5 (ui-tars-1.5-7b), "
                     "UI-TARS-1.0 (ui-tars-7b-dpo), OpenCUA (opencua-7b, opencua-qwen2-7b), Qwen2.5-VL "
                     f"(qwen2.5-vl-72b-instruct); grammars: {', '.join(GRAMMARS)}")
