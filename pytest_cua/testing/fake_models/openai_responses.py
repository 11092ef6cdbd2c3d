"""OpenAI Responses (``POST /v1/responses``): input items and ``previous_response_id`` read into a conversation,
the computer-use tools checked (``computer_use_preview``, the GA ``computer`` tool), replies rendered as output
items with usage."""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from pytest_cua.testing.fake_models.conversation import (Conversation, HistoryCall, HistoryMessage, HistoryResult,
                                                         data_url_image, text_parts)
from pytest_cua.testing.fake_models.errors import Rejected
from pytest_cua.testing.fake_models.policy import FakeReply, FakeRequest
from pytest_cua.testing.fake_models.protocol import FakeIds, OpenAIProtocol, args_json, check_calls, check_display
from pytest_cua.testing.fake_models.usage import PromptCache, fake_tokens

OPENAI_COMPUTER_ENVIRONMENTS = ("windows", "mac", "linux", "ubuntu", "browser")


def _responses_segment(item: dict) -> dict:
    """An input item in one form for the prompt cache: ``{"role", "content": "text"}`` as a message item."""
    if item.get("type", "message") != "message" or not isinstance(item.get("content"), str):
        return {**item, "type": item.get("type", "message")}
    kind = "output_text" if item.get("role") == "assistant" else "input_text"
    return {**item, "type": "message", "content": [{"type": kind, "text": item["content"]}]}


def _has_function(body: dict, name: str) -> bool:
    """Whether a Responses request offers a function tool called ``name``."""
    return any(tool.get("type") == "function" and tool.get("name") == name for tool in body.get("tools") or [])


def _gpt_version(model: str) -> tuple[int, int] | None:
    """(major, minor) of a ``gpt-N.M`` model name."""
    match = re.match(r"gpt-(\d+)(?:\.(\d+))?", model)
    return (int(match[1]), int(match[2] or 0)) if match else None


class ResponsesProtocol(OpenAIProtocol):
    """``POST /v1/responses``."""

    name = "responses"

    def __init__(self, ids: FakeIds, cache: PromptCache):
        super().__init__(ids, cache)
        self._stored: dict[str, list[Any]] = {}
        self._encrypted: set[str] = set()  # the reasoning items' encrypted_content the server issued
        self._lock = threading.Lock()

    def _history(self, body: dict) -> list[Any]:
        """The input items, after those of ``previous_response_id`` (its input and output)."""
        items = body.get("input", [])
        if isinstance(items, str):
            items = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": items}]}]
        previous = body.get("previous_response_id")
        if not previous:
            return list(items)
        with self._lock:
            prefix = self._stored.get(previous)
        if prefix is None:
            raise Rejected(400, f"Previous response with id '{previous}' not found.",
                           param="previous_response_id", code="previous_response_not_found")
        return prefix + list(items)

    def parse(self, body: dict, headers: dict[str, str]) -> Conversation:
        conv = Conversation(items=self._history(body))
        tools = body.get("tools") or []
        conv.tool_names = [tool.get("name") or tool["type"] for tool in tools]
        conv.segments = list(tools)
        if body.get("instructions"):
            system = conv.message("system")
            system.texts.append(body["instructions"])
            conv.segments.append({"instructions": body["instructions"]})
        conv.segments.extend(map(_responses_segment, conv.items))
        for index, item in enumerate(conv.items):
            self._parse_item(conv, item, f"input[{index}]")
        self._check_acknowledged(conv)
        return conv

    def _check_acknowledged(self, conv: Conversation) -> None:
        """Every ``pending_safety_checks`` entry of a computer call is acknowledged in its output (the API
        refuses to go on otherwise), and a reasoning item's ``encrypted_content`` is one this server issued."""
        pending: dict[str, set[str]] = {}
        for index, item in enumerate(conv.items):
            kind = item.get("type", "message")
            if kind == "computer_call" and item.get("pending_safety_checks"):
                pending[item["call_id"]] = {c["id"] for c in item["pending_safety_checks"]}
            elif kind == "computer_call_output" and item.get("call_id") in pending:
                acknowledged = {c.get("id") for c in item.get("acknowledged_safety_checks") or []}
                missing = pending.pop(item["call_id"]) - acknowledged
                if missing:
                    conv.problems.append(f"input[{index}]: the pending safety check(s) {', '.join(sorted(missing))} "
                                         f"of computer call {item['call_id']} must be acknowledged "
                                         "(acknowledged_safety_checks) to go on")
            elif kind == "reasoning" and item.get("encrypted_content"):
                with self._lock:
                    known = item["encrypted_content"] in self._encrypted
                if not known:
                    conv.problems.append(f"input[{index}]: The encrypted content of reasoning item "
                                         f"{item.get('id')} could not be verified.")

    def _parse_item(self, conv: Conversation, item: dict, where: str) -> None:
        kind = item.get("type", "message")
        if kind == "message" and item["role"] != "assistant":
            self._parse_message(conv, item, where)
        elif kind in ("message", "reasoning", "function_call", "computer_call"):
            self._parse_output_item(conv, item, kind)
        elif kind in ("function_call_output", "computer_call_output"):
            self._parse_call_output(conv, item, kind, where)
        else:
            conv.problems.append(f"{where}: input item type {kind!r} is not supported by the fake server")

    def _parse_message(self, conv: Conversation, item: dict, where: str) -> None:
        role = "user" if item["role"] == "user" else "system"
        message = conv.message(role)
        content = item["content"]
        message.texts.extend(text_parts(content, ("input_text", "output_text", "text")))
        for index, part in enumerate(content if isinstance(content, list) else []):
            if part.get("type") == "input_image":
                conv.add_image(message, data_url_image(part.get("image_url"), f"{where}.content[{index}]",
                                                       conv.problems))

    def _parse_output_item(self, conv: Conversation, item: dict, kind: str) -> None:
        """An item a response produced: it joins the assistant turn it belongs to."""
        if not conv.messages or conv.messages[-1].role != "assistant":
            conv.message("assistant")
        message = conv.messages[-1]
        if kind == "message":
            message.texts.extend(text_parts(item["content"], ("output_text", "text")))
        elif kind == "function_call":
            message.calls.append(HistoryCall(item["call_id"], item["name"], "function",
                                             screenshot=item["name"] == "screenshot"))
        elif kind == "computer_call":
            actions = [item["action"]] if item.get("action") else item.get("actions") or []
            types = [action.get("type") for action in actions]
            message.calls.append(HistoryCall(item["call_id"], "computer", "computer",
                                             screenshot="screenshot" in types, action=",".join(map(str, types))))

    def _parse_call_output(self, conv: Conversation, item: dict, kind: str, where: str) -> None:
        result = HistoryResult(item["call_id"], kind.removesuffix("_call_output"))
        conv.message("tool").results.append(result)
        output = item.get("output")
        if kind == "computer_call_output":
            self._parse_screenshot(conv, result, output, f"{where}.output")
            return
        result.texts.extend(text_parts(output, ("input_text", "output_text", "text")))
        for index, part in enumerate(output if isinstance(output, list) else []):
            if part.get("type") == "input_image":
                conv.add_image(result, data_url_image(part.get("image_url"), f"{where}.output[{index}]",
                                                      conv.problems))

    @staticmethod
    def _parse_screenshot(conv: Conversation, result: HistoryResult, output: Any, where: str) -> None:
        """A computer_call_output's screenshot (``computer_screenshot``, or ``input_image`` as the sample app)."""
        if not isinstance(output, dict) or output.get("type") not in ("computer_screenshot", "input_image"):
            conv.problems.append(f"{where}: a computer_call_output's output must be "
                                 '{"type": "computer_screenshot", "image_url": "data:image/...;base64,..."}')
            return
        conv.add_image(result, data_url_image(output.get("image_url"), where, conv.problems))

    def check(self, body: dict, headers: dict[str, str], conv: Conversation) -> None:
        model = body["model"]
        for tool in body.get("tools") or []:
            if tool.get("type") == "computer_use_preview":
                self._check_preview_tool(conv, tool, model, body.get("truncation"))
            elif tool.get("type") == "computer":
                version = _gpt_version(model)
                if version is None or version < (5, 4):
                    conv.problems.append(f"the GA computer tool (type 'computer') needs gpt-5.4 or later, "
                                         f"not model {model!r}")
        check_calls(conv, self)

    @staticmethod
    def _check_preview_tool(conv: Conversation, tool: dict, model: str, truncation: Any) -> None:
        if not model.startswith("computer-use-preview"):
            conv.problems.append(f"the computer_use_preview tool needs model computer-use-preview, not {model!r}")
        if truncation != "auto":
            conv.problems.append(f"the computer_use_preview tool needs truncation 'auto' (got {truncation!r})")
        if tool.get("environment") not in OPENAI_COMPUTER_ENVIRONMENTS:
            conv.problems.append(f"computer_use_preview environment {tool.get('environment')!r} is not one of "
                                 f"{', '.join(OPENAI_COMPUTER_ENVIRONMENTS)}")
        check_display(conv, tool, "display_width", "display_height")

    def closes(self, message: HistoryMessage) -> bool:
        return message.role == "user"

    def unanswered(self, call: HistoryCall) -> str:
        output = "computer_call_output" if call.kind == "computer" else "function_call_output"
        return f"No tool output found for {call.kind} call {call.id} ({call.name}): every call needs a " \
               f"{output} with its call_id before the next user turn"

    def unknown_result(self, result: HistoryResult) -> str:
        return f"No tool call found for {result.kind}_call_output with call_id {result.call_id}"

    def render(self, request: FakeRequest, conv: Conversation, reply: FakeReply) -> dict:
        output = self._output_items(request, reply)
        prompt = self.account(request, conv)
        reasoning_tokens = len(reply.reasoning) // 4
        output_tokens = max(fake_tokens(output), reasoning_tokens, 1)
        response_id = self.new_id("resp")
        if request.body.get("store", True):
            with self._lock:
                self._stored[response_id] = conv.items + output
        body = request.body
        cut = reply.stop == "max_tokens"
        return {
            "id": response_id, "object": "response", "created_at": int(time.time()),
            "status": "incomplete" if cut else "completed", "completed_at": None if cut else int(time.time()),
            "error": None, "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
            "instructions": body.get("instructions"), "max_output_tokens": body.get("max_output_tokens"),
            "model": request.model, "output": output, "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "previous_response_id": body.get("previous_response_id"),
            "reasoning": {"effort": None, "summary": None, **(body.get("reasoning") or {})},
            "temperature": body.get("temperature", 1.0),
            "text": body.get("text", {"format": {"type": "text"}}), "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools", []), "top_p": body.get("top_p", 1.0),
            "truncation": body.get("truncation", "disabled"), "metadata": body.get("metadata", {}),
            "service_tier": "default", "background": False,
            "usage": {
                "input_tokens": prompt.total, "input_tokens_details": {"cached_tokens": prompt.cached,
                                                                    "cache_write_tokens": prompt.written},
                "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
                "total_tokens": prompt.total + output_tokens,
            },
        }

    def _output_items(self, request: FakeRequest, reply: FakeReply) -> list[dict]:
        new_id = self.new_id
        output: list[dict] = []
        if reply.reasoning or reply.encrypted_reasoning:
            item = {"type": "reasoning", "id": new_id("rs"),
                    "summary": [{"type": "summary_text", "text": reply.reasoning}] if reply.reasoning else []}
            if reply.encrypted_reasoning and "reasoning.encrypted_content" in (request.body.get("include") or []):
                item["encrypted_content"] = reply.encrypted_reasoning
                with self._lock:
                    self._encrypted.add(reply.encrypted_reasoning)
            output.append(item)
        if reply.refusal:
            output.append({"type": "message", "id": new_id("msg"), "role": "assistant", "status": "completed",
                           "content": [{"type": "refusal", "refusal": reply.refusal}]})
            return output
        if reply.text or not reply.calls:
            output.append({"type": "message", "id": new_id("msg"), "role": "assistant",
                           "status": "incomplete" if reply.stop == "max_tokens" else "completed",
                           "content": [{"type": "output_text", "text": reply.text, "annotations": [], "logprobs": []}]})
        for call in reply.calls:
            if call.name == "computer" and not _has_function(request.body, "computer"):
                output.append(self._computer_call(call.arguments, reply.safety_checks))
            else:
                output.append({"type": "function_call", "id": new_id("fc"), "call_id": new_id("call"),
                               "name": call.name, "arguments": args_json(call.arguments), "status": "completed"})
        return output

    def _computer_call(self, arguments: dict | str, safety_checks: list[dict] = ()) -> dict:  # type: ignore[assignment]
        """A computer_call: ``{"actions": [...]}`` is a GA batch, anything else one preview action."""
        if not isinstance(arguments, dict):
            raise TypeError("a computer call's arguments must be the action dict")
        item: dict[str, Any] = {"type": "computer_call", "id": self.new_id("cu"),
                                "call_id": self.new_id("call"), "status": "completed",
                                "pending_safety_checks": [dict(c) for c in safety_checks]}
        if "actions" in arguments:
            item["actions"] = arguments["actions"]
        else:
            item["action"] = arguments
        return item
