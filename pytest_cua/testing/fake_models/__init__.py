"""Fake OpenAI and Anthropic model servers on loopback that speak the vendors' wire protocols.

``FakeModelServer`` serves ``POST /v1/responses`` (OpenAI Responses), ``POST /v1/chat/completions`` (OpenAI chat
completions) and ``POST /v1/messages`` (Anthropic Messages) on ``127.0.0.1``, so the official ``openai`` and
``anthropic`` SDKs talk to it through ``base_url``. A *policy* (``FakeRequest -> FakeReply``) plays the model;
the server renders its reply in the vendor's response shape with deterministic fake usage.

With ``strict=True`` the server rejects, as the real API would, requests a real vendor rejects (unanswered tool
calls, wrong computer-tool version or beta header, oversized images, bad API key, ...): each problem is
recorded in ``violations`` and answered 400 (401 for auth) in the vendor's error shape. ``fail_next`` and
``delay_next`` inject 429/5xx answers and late answers.

Usage is derived from the request size: a prompt segment (a tool, the instructions, one message or content
block) costs ``len(JSON) // 4`` tokens plus ``IMAGE_TOKENS`` per image. A request whose prompt starts with an
earlier request's whole prompt (OpenAI) or with a prefix an earlier request marked with ``cache_control``
(Anthropic) reports that prefix as cached.

Modules:

* ``policy``: ``FakeRequest``, ``FakeReply``, ``FakeCall`` and the ready-made policies;
* ``server``: ``FakeModelServer`` (HTTP, routing, strict rejection, fault and delay injection);
* ``protocol``: the ``VendorProtocol`` interface and the checks every protocol shares;
* ``openai_responses``, ``openai_chat``, ``anthropic_messages``: one vendor protocol each;
* ``conversation``: a request normalised into messages, images, tool calls and outputs;
* ``usage``: fake token counts and the prompt cache;
* ``errors``: rejections, the vendors' error bodies and the API-key check.

May import the core modules and ``agents.models`` (``elements``: the element list a policy reads); nothing in
``pytest_cua`` outside ``testing`` imports it.
"""

from __future__ import annotations

from pytest_cua.testing.fake_models.anthropic_messages import (ANTHROPIC_COMPUTER_BETAS, ANTHROPIC_MANY_IMAGES,
                                                               ANTHROPIC_MANY_IMAGES_MAX_SIDE,
                                                               ANTHROPIC_MAX_IMAGE_BASE64, ANTHROPIC_MAX_IMAGES,
                                                               ANTHROPIC_MAX_SIDE, ANTHROPIC_MEDIA_TYPES)
from pytest_cua.testing.fake_models.openai_responses import OPENAI_COMPUTER_ENVIRONMENTS
from pytest_cua.testing.fake_models.policy import (FakeCall, FakeReply, FakeRequest, JudgePolicy, Policy,
                                                   ScriptedPolicy, default_policy)
from pytest_cua.testing.fake_models.server import FakeModelServer
from pytest_cua.testing.fake_models.usage import IMAGE_TOKENS

__all__ = [
    "ANTHROPIC_COMPUTER_BETAS", "ANTHROPIC_MANY_IMAGES", "ANTHROPIC_MANY_IMAGES_MAX_SIDE", "ANTHROPIC_MAX_IMAGES",
    "ANTHROPIC_MAX_IMAGE_BASE64", "ANTHROPIC_MAX_SIDE", "ANTHROPIC_MEDIA_TYPES", "OPENAI_COMPUTER_ENVIRONMENTS",
    "FakeCall", "FakeModelServer", "FakeReply", "FakeRequest", "IMAGE_TOKENS", "JudgePolicy", "Policy",
    "ScriptedPolicy",
    "default_policy",
]
