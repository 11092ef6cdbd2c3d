"""Anthropic's Messages API (``client.messages.create``, ``client.beta.messages.create`` for computer use).

The computer tool's version and beta header come from the model (``computer_tool_for``); tool results come
first in the next user message, the screenshot inside the computer call's result. The system prompt and the
tools carry ``cache_control`` so that the stable prefix is cached.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_cua.agents.models.adapters.base import OMITTED_IMAGE, Adapter, dump, import_sdk
from pytest_cua.agents.models.aliases import COMPUTER_TOOLS, TOOLSET, beta_for_tool, computer_tool_for
from pytest_cua.agents.models.conversation import Call, Reply, UserTurn
from pytest_cua.agents.models.pricing import usage_from_anthropic

# the model -> computer tool table lives in ``aliases`` (dated with the alias table)
_OMITTED = {"type": "text", "text": OMITTED_IMAGE}  # an image of a step older than --cua-history
__all__ = ["AnthropicMessagesAdapter", "COMPUTER_TOOLS", "beta_for_tool", "computer_tool_for"]


class AnthropicMessagesAdapter(Adapter):
    vendor = "anthropic"
    protocol = "messages"

    def _make_client(self) -> Any:
        anthropic = import_sdk("anthropic")
        s = self.client_settings
        return anthropic.Anthropic(api_key=s.api_key, base_url=s.base_url, max_retries=0, timeout=s.timeout_s)

    def _append_user(self, turn: UserTurn) -> None:
        content: list[dict[str, Any]] = []
        for result in turn.results:
            parts: list[dict[str, Any]] = [{"type": "text", "text": result.text or "ok"}]
            if result.image is not None:
                parts.append(self.aging(_image_block(result.image), _OMITTED))
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": result.call_id, "content": parts}
            if result.is_error and result.image is None:
                # the API takes is_error only with text content; with a screenshot the text says "error: ..."
                block["is_error"] = True
            content.append(block)
        if turn.text:
            content.append({"type": "text", "text": turn.text})
        if turn.observation_text:
            content.append(self.observation_part({"type": "text", "text": turn.observation_text}))
        for image in ([turn.image] if turn.image is not None else []) + list(turn.more_images):
            content.append(self.aging(_image_block(image), _OMITTED))
        if self.messages and self.messages[-1]["role"] == "user":
            self.messages[-1]["content"].extend(content)  # roles alternate: join two user turns
        else:
            self.messages.append({"role": "user", "content": content})

    def _tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        if self.computer is not None and self.computer.kind == TOOLSET:
            # one entry for the whole family, no name and no display size (the screenshots say it)
            tools.append({"type": TOOLSET})
        elif self.computer is not None:
            tools.append({"type": self.computer.kind, "name": "computer",
                          "display_width_px": self.computer.display[0],
                          "display_height_px": self.computer.display[1]})
        for spec in self.tools:
            tools.append({"name": spec.name, "description": spec.description, "input_schema": spec.parameters})
        if tools:
            tools[-1] = {**tools[-1], "cache_control": {"type": "ephemeral"}}
        return tools

    def _request(self) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "max_tokens": self.generation.max_tokens,
                                   "messages": list(self.messages)}
        if self.system:
            request["system"] = [{"type": "text", "text": self.system, "cache_control": {"type": "ephemeral"}}]
        tools = self._tools()
        if tools:
            request["tools"] = tools
        budget = self.generation.options.get("thinking_budget")
        if self.generation.options.get("thinking") == "adaptive":
            request["thinking"] = {"type": "adaptive"}
        elif budget:
            request["thinking"] = {"type": "enabled", "budget_tokens": int(budget)}
        elif self.generation.temperature is not None and self.generation.temperature != 1.0:
            # 1.0 is the API's default; recent SDKs take no sampling parameters, so another value goes in the body
            request["extra_body"] = {"temperature": self.generation.temperature}
        if self.computer is not None and self.computer.beta:
            request["betas"] = [self.computer.beta]
        return request

    def _create(self, client: Any, request: dict[str, Any], headers: dict[str, str]) -> Any:
        if "betas" in request:
            return client.beta.messages.create(**request, extra_headers=headers or None)
        return client.messages.create(**request, extra_headers=headers or None)

    def _parse(self, response: Any) -> Reply:
        reply = Reply(usage=usage_from_anthropic(getattr(response, "usage", None)))
        blocks, texts, thoughts = [], [], []
        for block in getattr(response, "content", None) or []:
            data = dump(block)
            kind = data.get("type")
            if kind == "text":
                texts.append(data.get("text", ""))
                blocks.append({"type": "text", "text": data.get("text", "")})
            elif kind == "thinking":
                thoughts.append(data.get("thinking", ""))
                blocks.append({"type": "thinking", "thinking": data.get("thinking", ""),
                               "signature": data.get("signature", "")})
            elif kind == "redacted_thinking":
                blocks.append({"type": "redacted_thinking", "data": data.get("data", "")})
            elif kind == "tool_use":
                arguments = data.get("input")
                block = {"type": "tool_use", "id": data["id"], "name": data["name"], "input": arguments}
                member = data.get("toolset_name") == "computer"
                if member:  # a computer toolset member: the block goes back as it came
                    block["toolset_name"] = "computer"
                blocks.append(block)
                computer = self.computer is not None and (member or data["name"] == "computer")
                if member and isinstance(arguments, dict):
                    # one action vocabulary for the style: {"action": member, ...its input}
                    arguments = {"action": data["name"], **arguments}
                call = Call(id=str(data["id"]), name="computer" if computer else str(data["name"]),
                            arguments=arguments if isinstance(arguments, dict) else None,
                            raw_arguments=json.dumps(arguments), kind="computer" if computer else "function")
                if not isinstance(arguments, dict):
                    call.error = f"the input of {data['name']} must be a JSON object"
                reply.calls.append(call)
        if self.messages and self.messages[-1]["role"] == "assistant":
            # the continuation of a paused turn (pause_turn) is the same assistant turn
            self.messages[-1]["content"] = [*self.messages[-1]["content"], *blocks]
        else:
            self.messages.append({"role": "assistant",
                                  "content": blocks or [{"type": "text", "text": "(no output)"}]})
        reply.text = "\n".join(t for t in texts if t)
        reply.reasoning = "\n".join(t for t in thoughts if t)
        stop = getattr(response, "stop_reason", None)
        reply.truncated = stop in ("max_tokens", "model_context_window_exceeded")
        reply.paused = stop == "pause_turn"
        if stop == "refusal":
            details = dump(getattr(response, "stop_details", None)) or {}
            reply.refusal = "\n".join(t for t in (reply.text, details.get("explanation") if isinstance(details, dict)
                                                   else None) if t) or "(the model refused, with no text)"
            reply.refusal_category = details.get("category") if isinstance(details, dict) else None
        reply.raw = {"id": getattr(response, "id", None), "stop_reason": stop, "content": blocks,
                     **({"stop_details": dump(response.stop_details)} if getattr(response, "stop_details", None)
                        else {})}
        return reply


def _image_block(image: Any) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": image.base64()}}
