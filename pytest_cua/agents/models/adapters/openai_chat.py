"""OpenAI-compatible chat completions (``client.chat.completions.create``): OpenAI's own models, Gemini's
OpenAI endpoint, vLLM and other servers. Function tools as ``tools``; tool messages are text only, so a
screenshot always travels in a user message after them."""

from __future__ import annotations

from typing import Any

from pytest_cua.agents.models.adapters.base import OMITTED_IMAGE, Adapter, dump, function_call, openai_client
from pytest_cua.agents.models.adapters.openai_responses import is_reasoning_model
from pytest_cua.agents.models.conversation import Call, Reply, UserTurn
from pytest_cua.agents.models.pricing import usage_from_openai_chat


class OpenAIChatAdapter(Adapter):
    vendor = "openai-compatible"
    protocol = "chat"

    def _make_client(self) -> Any:
        return openai_client(self.client_settings)

    def reset(self, system: str, tools: Any, computer: Any = None) -> None:
        super().reset(system, tools, computer)
        if system:
            self.messages.append({"role": "system", "content": system})

    def _append_user(self, turn: UserTurn) -> None:
        for result in turn.results:
            self.messages.append({"role": "tool", "tool_call_id": result.call_id, "content": result.text})
        content: list[dict[str, Any]] = []
        if turn.text:
            content.append({"type": "text", "text": turn.text})
        if turn.observation_text:
            content.append(self.observation_part({"type": "text", "text": turn.observation_text}))
        images = [r.image for r in turn.results if r.image is not None] + ([turn.image] if turn.image else [])
        for image in images + list(turn.more_images):
            content.append(self.aging({"type": "image_url", "image_url": {"url": image.data_url(), "detail": "high"}},
                                      {"type": "text", "text": OMITTED_IMAGE}))
        if content:
            self.messages.append({"role": "user", "content": content})

    def _request(self) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": list(self.messages)}
        if self.tools:
            request["tools"] = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                                  "parameters": t.parameters}} for t in self.tools]
        if is_reasoning_model(self.model):
            request["max_completion_tokens"] = self.generation.max_tokens
        else:
            request["max_tokens"] = self.generation.max_tokens
        if self.generation.temperature is not None and not is_reasoning_model(self.model):
            request["temperature"] = self.generation.temperature
        for key in ("top_p", "seed"):
            if key in self.generation.options:
                request[key] = float(self.generation.options[key]) if key == "top_p" else int(self.generation.options[key])
        return request

    def _create(self, client: Any, request: dict[str, Any], headers: dict[str, str]) -> Any:
        return client.chat.completions.create(**request, extra_headers=headers or None)

    def _parse(self, response: Any) -> Reply:
        reply = Reply(usage=usage_from_openai_chat(getattr(response, "usage", None)))
        choices = getattr(response, "choices", None) or []
        if not choices:
            reply.raw = dump(response)
            self.messages.append({"role": "assistant", "content": ""})
            return reply
        message = choices[0].message
        data = dump(message)
        reply.text = data.get("content") or ""
        reply.reasoning = str(data.get("reasoning_content") or data.get("reasoning") or "")
        assistant: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        calls = data.get("tool_calls") or []
        for index, c in enumerate(calls):
            if not c.get("id"):  # some servers (Gemini, vLLM) send empty ids: each must be answered by its own
                c["id"] = f"call_{len(self.messages)}_{index}"
        if calls:
            assistant["tool_calls"] = [{"id": c["id"], "type": "function",
                                        "function": {"name": c["function"]["name"],
                                                     "arguments": c["function"].get("arguments") or ""}}
                                       for c in calls]
        elif assistant["content"] is None:
            assistant["content"] = ""
        self.messages.append(assistant)
        for c in calls:
            reply.calls.append(_call(c))
        finish = getattr(choices[0], "finish_reason", None)
        reply.truncated = finish == "length"
        if data.get("refusal"):
            reply.refusal = str(data["refusal"])
        elif finish == "content_filter":
            reply.refusal = "(the response was stopped by the content filter)"
            reply.refusal_category = "content_filter"
        reply.raw = {"id": getattr(response, "id", None), "message": data,
                     "finish_reason": getattr(choices[0], "finish_reason", None)}
        return reply


def _call(data: dict[str, Any]) -> Call:
    function = data.get("function") or {}
    return function_call(str(data.get("id")), str(function.get("name")), function.get("arguments") or "")
