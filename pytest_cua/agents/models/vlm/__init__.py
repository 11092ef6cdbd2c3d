"""Text grammars of open VLM agents served on an OpenAI-compatible endpoint (vLLM): UI-TARS, OpenCUA, Qwen2.5-VL.

A grammar knows how the model's authors prompt it, which image size to send and in which coordinate space the
model answers; it turns the model's text into our typed actions with their points mapped to screen pixels.
Nothing the model writes is executed: UI-TARS calls are read with regular expressions, OpenCUA's code with
``ast`` (through ``pytest_cua.agents.action_parser.parse_pyautogui``), Qwen's tool calls with ``json``. Text that
does not parse raises ``ActionError`` with a message meant for the model.

What the model's numbers mean:

* UI-TARS-1.5: pixels of the smart-resized image (factor 28, 100*28*28 to 16384*28*28 pixels); UI-TARS-1.0
  (``ui-tars-1.0``): thousandths 0-1000 of the image;
* OpenCUA-7B/32B (Qwen2.5-VL based): pixels of the smart-resized image (factor 28, 3136 to 12845056 pixels); a
  point whose numbers both lie within 0-1 and are not both whole is read as fractions of the screen, as the
  reference agent does. Qwen2-VL and Kimi-VL based OpenCUA models (``opencua-relative``): fractions 0-1;
* Qwen2.5-VL: pixels of the smart-resized image (factor 28, 3136 to 12845056 pixels), whose size the system
  prompt declares as the screen's resolution.

Keys come out in pyautogui's spelling (``enter``, ``ctrl``, ``left``, ``a``), as ``action_parser`` passes them on;
the browser and desktop environments both map these names to their own.

Modules:

* ``grammar``: the ``Grammar`` interface, ``ParsedTurn``, the checks every reply goes through and the image
  space a family answers in;
* ``arguments``: the values inside an action (numbers, text, waits, screen points, key names);
* ``uitars``, ``opencua``, ``qwen``: one model family each, its prompt and the reading of its replies;
* ``registry``: ``GRAMMARS`` by name and ``grammar_for_model``.

May import the core modules (``pytest_cua.actions``), ``agents.action_parser`` and ``agents.models.coords``.
Never ``episode``, ``results`` nor the wiring.
"""

from __future__ import annotations

from pytest_cua.agents.models.vlm.arguments import key_name
from pytest_cua.agents.models.vlm.grammar import (MAX_WAIT_SECONDS, QWEN_PROCESSOR_MAX_PIXELS,
                                                  QWEN_PROCESSOR_MIN_PIXELS, WAIT_SECONDS, Grammar, ParsedTurn)
from pytest_cua.agents.models.vlm.opencua import OPENCUA_PROMPT_VERSION, OpenCUAGrammar
from pytest_cua.agents.models.vlm.qwen import QWEN_PROMPT_VERSION, QwenVLGrammar
from pytest_cua.agents.models.vlm.registry import GRAMMARS, grammar_for_model
from pytest_cua.agents.models.vlm.uitars import (UITARS_MAX_PIXELS, UITARS_MIN_PIXELS, UITARS_PROMPT_VERSION,
                                                 UITARS_SCROLL_PX, UITarsGrammar)

__all__ = [
    "GRAMMARS",
    "MAX_WAIT_SECONDS",
    "OPENCUA_PROMPT_VERSION",
    "QWEN_PROCESSOR_MAX_PIXELS",
    "QWEN_PROCESSOR_MIN_PIXELS",
    "QWEN_PROMPT_VERSION",
    "UITARS_MAX_PIXELS",
    "UITARS_MIN_PIXELS",
    "UITARS_PROMPT_VERSION",
    "UITARS_SCROLL_PX",
    "WAIT_SECONDS",
    "Grammar",
    "OpenCUAGrammar",
    "ParsedTurn",
    "QwenVLGrammar",
    "UITarsGrammar",
    "grammar_for_model",
    "key_name",
]
