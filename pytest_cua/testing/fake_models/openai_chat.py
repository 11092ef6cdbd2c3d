"""OpenAI chat completions (``POST /v1/chat/completions``): messages and tool calls read into a conversation,
``max_tokens`` refused for reasoning models, replies rendered as one choice with usage."""

from __future__ import annotations

import re
import time
from typing import Any

from pytest_cua.testing.fake_models.conversation import (Conversation, HistoryCall, HistoryMessage, HistoryResult,
                                                         data_url_image, text_parts)
from pytest_cua.testing.fake_models.policy import FakeReply, FakeRequest
from pytest_cua.testing.fake_models.protocol import OpenAIProtocol, args_json, check_calls
from pytest_cua.testing.fake_models.usage import fake_tokens

_REASONING_MODELS = re.compile(r"(o\d+|gpt-5)(?!\d)(?!.*-chat)")


class ChatProtocol(OpenAIProtocol):
    """``POST /v1/chat/completions``."""

    name = "chat"

    def parse(self, body: dict, headers: dict[str, str]) -> Conversation:
        tools = body.get("tools") or []
        conv = Conversation(items=list(body["messages"]))
        conv.tool_names = [tool["function"]["name"] if tool.get("type") == "function" else tool["type"]
                           for tool in tools]
        conv.segments = list(tools) + conv.items
        for index, message in enumerate(conv.items):
            self._parse_message(conv, message, f"messages[{index}]")
        return conv

    def _parse_message(self, conv: Conversation, item: dict, where: str) -> None:
        role = item["role"]
        content = item.get("content")
        if role == "tool":
            result = HistoryResult(item.get("tool_call_id", ""), "function", text_parts(content, ("text",)))
            conv.message("tool").results.append(result)
            if not (isinstance(content, str) or all(part.get("type") == "text" for part in content or [])):
                conv.problems.append(f"{where}: a tool message's content must be text only")
            return
        message = conv.message("system" if role in ("system", "developer") else role)
        message.texts.extend(text_parts(content, ("text",)))
        for index, part in enumerate(content if isinstance(content, list) else []):
            if part.get("type") == "image_url":
                url = (part.get("image_url") or {}).get("url")
                conv.add_image(message, data_url_image(url, f"{where}.content[{index}]", conv.problems))
        for call in item.get("tool_calls") or []:
            name = call["function"]["name"]
            message.calls.append(HistoryCall(call["id"], name, "function", screenshot=name == "screenshot"))

    def check(self, body: dict, headers: dict[str, str], conv: Conversation) -> None:
        if "max_tokens" in body and _REASONING_MODELS.match(body["model"]):
            conv.problems.append(f"Unsupported parameter: 'max_tokens' is not supported with model "
                                 f"{body['model']!r}. Use 'max_completion_tokens' instead.")
        check_calls(conv, self)

    def closes(self, message: HistoryMessage) -> bool:
        return message.role != "tool"

    def unanswered(self, call: HistoryCall) -> str:
        return f"An assistant message with 'tool_calls' must be followed by tool messages responding to each " \
               f"'tool_call_id'. The following tool_call_ids did not have response messages: {call.id} ({call.name})"

    def unknown_result(self, result: HistoryResult) -> str:
        return f"Messages with role 'tool' must be a response to a preceding message with 'tool_calls' " \
               f"(tool_call_id {result.call_id!r})"

    def render(self, request: FakeRequest, conv: Conversation, reply: FakeReply) -> dict:
        message: dict[str, Any] = {"role": "assistant", "content": None if reply.refusal else reply.text or None,
                                   "refusal": reply.refusal or None, "annotations": []}
        if reply.calls and not reply.refusal:
            message["tool_calls"] = [
                {"id": self.new_id("call"), "type": "function",
                 "function": {"name": call.name, "arguments": args_json(call.arguments)}}
                for call in reply.calls
            ]
        prompt = self.account(request, conv)
        reasoning_tokens = len(reply.reasoning) // 4
        completion_tokens = fake_tokens(message) + reasoning_tokens
        return {
            "id": self.new_id("chatcmpl", sep="-"), "object": "chat.completion",
            "created": int(time.time()), "model": request.model, "service_tier": "default",
            "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": "length" if reply.stop == "max_tokens" else
                         "tool_calls" if reply.calls and not reply.refusal else "stop"}],
            "usage": {
                "prompt_tokens": prompt.total, "completion_tokens": completion_tokens,
                "total_tokens": prompt.total + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": prompt.cached, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": reasoning_tokens, "audio_tokens": 0,
                                              "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
            },
        }
