"""Anthropic Messages (``POST /v1/messages``): content blocks read into a conversation, the roles, thinking,
computer-tool version and beta header, and image limits checked, replies rendered as content blocks with usage
and prompt caching (``cache_control``)."""

from __future__ import annotations

import base64
import hashlib
import re

from pytest_cua.testing.fake_models.conversation import (Conversation, DecodedImage, HistoryCall, HistoryMessage,
                                                         HistoryResult, decode_image, text_parts)
from pytest_cua.testing.fake_models.policy import FakeReply, FakeRequest
from pytest_cua.testing.fake_models.protocol import VendorProtocol, check_calls, check_display
from pytest_cua.testing.fake_models.usage import cache_mark, fake_tokens

ANTHROPIC_MAX_IMAGE_BASE64 = 5 * 1024 * 1024
ANTHROPIC_MAX_SIDE = 8000
ANTHROPIC_MANY_IMAGES = 20
ANTHROPIC_MANY_IMAGES_MAX_SIDE = 2000
ANTHROPIC_MAX_IMAGES = 100
ANTHROPIC_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
ANTHROPIC_COMPUTER_BETAS = {
    "computer_20241022": "computer-use-2024-10-22",
    "computer_20250124": "computer-use-2025-01-24",
    "computer_20251124": "computer-use-2025-11-24",
}
#: the GA computer toolset: one tools[] entry (no name, no display size, no beta header); its replies are
#: tool_use blocks named per member with ``toolset_name: "computer"``
COMPUTER_TOOLSET = "computer_toolset_20260801"
TOOLSET_MEMBERS = ("key", "hold_key", "type", "cursor_position", "mouse_move", "left_mouse_down", "left_mouse_up",
                   "left_click", "left_click_drag", "right_click", "middle_click", "double_click", "triple_click",
                   "scroll", "wait", "screenshot", "zoom")
TOOLSET_ENTRY_KEYS = {"type", "configs", "cache_control"}


def _claude_version(model: str) -> tuple[str, tuple[int, int]] | None:
    """Family and (major, minor) of a Claude model name (``claude-sonnet-4-5-20250929``, ``claude-3-7-sonnet``)."""
    match = re.match(r"claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?=-|$)", model)
    if match:
        return match[1], (int(match[2]), int(match[3] or 0))
    match = re.match(r"claude-(\d+)(?:-(\d))?-(opus|sonnet|haiku)(?=-|$)", model)
    if match:
        return match[3], (int(match[1]), int(match[2] or 0))
    return None


def _claude_computer_tools(model: str) -> tuple[str, ...] | None:
    """The computer tool versions a Claude model takes (None: not a Claude model the fake knows): the toolset
    for 4.5 and later (the 5.5 models, fable-5-2 and mythos-5-2 take nothing else), and the one beta version of
    its generation."""
    if re.match(r"claude-(fable|mythos)-", model):
        return (COMPUTER_TOOLSET,) if re.match(r"claude-(fable|mythos)-5-2", model) else \
            (COMPUTER_TOOLSET, "computer_20251124")
    claude = _claude_version(model)
    if claude is None:
        return None
    beta = _claude_computer_tool(*claude)
    if claude[1] >= (5, 5):
        return (COMPUTER_TOOLSET,)
    toolset = (COMPUTER_TOOLSET,) if claude[1] >= (4, 5) else ()
    return toolset + ((beta,) if beta else ())


def _claude_computer_tool(family: str, version: tuple[int, int]) -> str | None:
    """The beta computer tool version a Claude model takes, or None when it has no computer use."""
    if version >= (4, 6) or (family == "opus" and version >= (4, 5)):
        return "computer_20251124"
    if version >= (4, 0) or (family, version) == ("sonnet", (3, 7)):
        return "computer_20250124"
    if (family, version) == ("sonnet", (3, 5)):
        return "computer_20241022"
    return None


def _thinking_signature(thinking: str) -> str:
    """The signature the fake server gives a thinking block (and expects back)."""
    return base64.b64encode(hashlib.sha256(f"fake-thinking:{thinking}".encode()).digest()).decode()


class MessagesProtocol(VendorProtocol):
    """``POST /v1/messages`` (Anthropic)."""

    name = "messages"
    vendor = "anthropic"

    def parse(self, body: dict, headers: dict[str, str]) -> Conversation:
        tools = body.get("tools") or []
        conv = Conversation(items=list(body["messages"]))
        conv.tool_names = [tool["type"] if tool.get("type", "custom") != "custom" else tool["name"]
                           for tool in tools]
        computer_names = {tool.get("name") for tool in tools if str(tool.get("type", "")).startswith("computer_")
                          and tool.get("type") != COMPUTER_TOOLSET}
        conv.segments = list(tools)
        system = body.get("system")
        if system:
            conv.message("system").texts.extend(text_parts(system, ("text",)))
            conv.segments.extend([{"type": "text", "text": system}] if isinstance(system, str) else system)
        for index, message in enumerate(conv.items):
            self._parse_message(conv, message, f"messages.{index}", computer_names)
        conv.breakpoints = [i for i, segment in enumerate(conv.segments) if cache_mark(segment) is not None]
        return conv

    def _parse_message(self, conv: Conversation, item: dict, where: str, computer_names: set) -> None:
        role, content = item["role"], item["content"]
        if role not in ("user", "assistant"):
            conv.problems.append(f"{where}.role: Input should be 'user' or 'assistant' (got {role!r})")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        conv.segments.extend({"role": role, "block": block} for block in blocks)
        message = conv.message(role)
        calls = conv.calls_by_id()
        for index, block in enumerate(blocks):
            at, kind = f"{where}.content.{index}", block.get("type")
            if kind == "text":
                message.texts.append(block["text"])
            elif kind == "image":
                conv.add_image(message, self._image(block, at, conv.problems))
            elif kind == "tool_use":
                message.calls.append(self._tool_use_call(block, computer_names))
            elif kind == "tool_result":
                if index and blocks[index - 1].get("type") != "tool_result":
                    conv.problems.append(f"{at}: tool_result blocks must come first in the user message")
                self._parse_result(conv, message, block, at, calls.get(block.get("tool_use_id", "")))
            elif kind == "thinking" and block.get("signature") != _thinking_signature(block.get("thinking", "")):
                conv.problems.append(f"{at}: Invalid `signature` in `thinking` block")

    @staticmethod
    def _tool_use_call(block: dict, computer_names: set) -> HistoryCall:
        """A tool_use block as a call (a computer tool's ``action`` says whether it asks for a screenshot)."""
        if block.get("toolset_name") == "computer":  # a toolset member: the name is the action
            return HistoryCall(block["id"], block["name"], "computer", screenshot=block["name"] == "screenshot",
                               action=block["name"])
        action = block["input"].get("action", "") if isinstance(block.get("input"), dict) else ""
        kind = "computer" if block["name"] in computer_names else "function"
        return HistoryCall(block["id"], block["name"], kind, screenshot="screenshot" in (action, block["name"]),
                           action=action)

    def _parse_result(self, conv: Conversation, message: HistoryMessage, block: dict, where: str,
                      call: HistoryCall | None) -> None:
        result = HistoryResult(block["tool_use_id"], "")
        message.results.append(result)
        content = block.get("content") or []
        if block.get("is_error") and isinstance(content, list) and any(p.get("type") != "text" for p in content):
            conv.problems.append(f"{where}: all content must be type 'text' if 'is_error' is true")
        result.texts.extend(text_parts(content, ("text",)))
        for index, part in enumerate(content if isinstance(content, list) else []):
            if part.get("type") == "image":
                image = self._image(part, f"{where}.content.{index}", conv.problems)
                if image is not None:
                    image.zoom = call is not None and call.action == "zoom"
                conv.add_image(result, image)

    @staticmethod
    def _image(block: dict, where: str, problems: list[str]) -> DecodedImage | None:
        """An image block's decoded image (only base64 sources: the fake server fetches nothing)."""
        source = block.get("source") or {}
        if source.get("type") != "base64":
            problems.append(f"{where}: image source type {source.get('type')!r} is not supported by the fake "
                            "server (use base64)")
            return None
        return decode_image(source.get("data"), source.get("media_type", ""), where, problems)

    def check(self, body: dict, headers: dict[str, str], conv: Conversation) -> None:
        if "anthropic-version" not in headers:
            conv.problems.append("anthropic-version: header is required")
        if not isinstance(body.get("max_tokens"), int):
            conv.problems.append("max_tokens: Field required")
        self._check_roles(conv)
        self._check_thinking(conv, body)
        for tool in body.get("tools") or []:
            if tool.get("type") == COMPUTER_TOOLSET:
                self._check_toolset(conv, tool, body["model"])
            elif str(tool.get("type", "")).startswith("computer_"):
                self._check_computer_tool(conv, tool, body["model"], headers.get("anthropic-beta", ""))
        self._check_images(conv)
        check_calls(conv, self)

    @staticmethod
    def _check_roles(conv: Conversation) -> None:
        roles = [m.role for m in conv.messages if m.role != "system"]
        if not roles or roles[0] != "user":
            conv.problems.append("messages: the first message must use the 'user' role")
        for index, (before, after) in enumerate(zip(roles, roles[1:]), 1):
            if before == after or after not in ("user", "assistant"):
                conv.problems.append(f"messages.{index}: roles must alternate between 'user' and 'assistant' "
                                     f"(got {before!r} then {after!r})")

    @staticmethod
    def _check_thinking(conv: Conversation, body: dict) -> None:
        thinking = body.get("thinking") or {}
        if thinking.get("type") != "enabled":
            return
        budget, max_tokens = thinking.get("budget_tokens", 0), body.get("max_tokens") or 0
        if budget < 1024:
            conv.problems.append("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
        if budget >= max_tokens:
            conv.problems.append(f"`max_tokens` must be greater than `thinking.budget_tokens` "
                                 f"({max_tokens} <= {budget})")

    @staticmethod
    def _check_toolset(conv: Conversation, tool: dict, model: str) -> None:
        extra = sorted(set(tool) - TOOLSET_ENTRY_KEYS)
        if extra:
            conv.problems.append(f"tools.{COMPUTER_TOOLSET}: unexpected field(s) {', '.join(extra)} (a toolset entry "
                                 "carries only type, configs and cache_control)")
        unknown = sorted(set(tool.get("configs") or {}) - set(TOOLSET_MEMBERS))
        if unknown:
            conv.problems.append(f"tools.{COMPUTER_TOOLSET}.configs: unknown member(s) {', '.join(unknown)}")
        takes = _claude_computer_tools(model)
        if takes is not None and COMPUTER_TOOLSET not in takes:
            conv.problems.append(f"tools: model {model!r} does not take {COMPUTER_TOOLSET}")

    @staticmethod
    def _check_computer_tool(conv: Conversation, tool: dict, model: str, beta_header: str) -> None:
        version = tool["type"]
        beta = ANTHROPIC_COMPUTER_BETAS.get(version)
        betas = [b.strip() for b in beta_header.split(",") if b.strip()]
        if beta is None:
            conv.problems.append(f"tools: unknown computer tool version {version!r}")
        elif beta not in betas:
            conv.problems.append(f"tools: {version} needs the anthropic-beta header {beta!r} "
                                 f"(got {', '.join(betas) or 'none'})")
        takes = _claude_computer_tools(model)
        if takes is not None and version not in takes:
            conv.problems.append(f"tools: model {model!r} takes " +
                                 (f"the computer tool {' or '.join(takes)}, not {version}" if takes
                                  else f"no computer tool (got {version})"))
        check_display(conv, tool, "display_width_px", "display_height_px")

    @staticmethod
    def _check_images(conv: Conversation) -> None:
        many = len(conv.images) > ANTHROPIC_MANY_IMAGES
        max_side = ANTHROPIC_MANY_IMAGES_MAX_SIDE if many else ANTHROPIC_MAX_SIDE
        if len(conv.images) > ANTHROPIC_MAX_IMAGES:
            conv.problems.append(f"Too many images in the request: {len(conv.images)} > {ANTHROPIC_MAX_IMAGES}")
        for image in conv.images:
            if image.b64_len > ANTHROPIC_MAX_IMAGE_BASE64:
                conv.problems.append(f"{image.where}.source.base64: image exceeds 5 MB maximum: "
                                     f"{image.b64_len} bytes > {ANTHROPIC_MAX_IMAGE_BASE64} bytes")
            if max(image.size) > max_side:
                conv.problems.append(
                    f"{image.where}.source.base64: image dimensions exceed max allowed size"
                    f"{' for many-image requests' if many else ''}: {max_side} pixels "
                    f"(got {image.size[0]}x{image.size[1]})")
            if image.declared_type not in ANTHROPIC_MEDIA_TYPES or image.declared_type != image.actual_type:
                conv.problems.append(f"{image.where}.source: media_type {image.declared_type!r} does not match "
                                     f"the image ({image.actual_type or 'unknown'})")

    def closes(self, message: HistoryMessage) -> bool:
        return True

    def unanswered(self, call: HistoryCall) -> str:
        return f"tool_use ids were found without tool_result blocks immediately after: {call.id} ({call.name}). " \
               "Each tool_use block must have a corresponding tool_result block in the next message."

    def unknown_result(self, result: HistoryResult) -> str:
        return f"unexpected tool_use_id found in tool_result blocks: {result.call_id}. Each tool_result block " \
               "must have a corresponding tool_use block in the previous message."

    def render(self, request: FakeRequest, conv: Conversation, reply: FakeReply) -> dict:
        content: list[dict] = []
        if reply.reasoning:
            content.append({"type": "thinking", "thinking": reply.reasoning,
                            "signature": _thinking_signature(reply.reasoning)})
        text = reply.refusal or reply.text
        if text or not reply.calls:
            content.append({"type": "text", "text": text})
        toolset = any(tool.get("type") == COMPUTER_TOOLSET for tool in request.body.get("tools") or [])
        if not reply.refusal:
            content.extend(self._tool_use(call, toolset) for call in reply.calls)
        stop = "refusal" if reply.refusal else reply.stop or ("tool_use" if reply.calls else "end_turn")
        prompt = self.account(request, conv)
        return {
            "id": self.new_id("msg"), "type": "message", "role": "assistant", "model": request.model,
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "stop_details": {"type": "refusal", "category": reply.refusal_category,
                             "explanation": None} if reply.refusal else None,
            "usage": {
                "input_tokens": prompt.total - prompt.cached - prompt.written, "output_tokens": fake_tokens(content),
                "cache_creation_input_tokens": prompt.written, "cache_read_input_tokens": prompt.cached,
                "cache_creation": {"ephemeral_5m_input_tokens": prompt.written if prompt.ttl == "5m" else 0,
                                   "ephemeral_1h_input_tokens": prompt.written if prompt.ttl == "1h" else 0},
                "service_tier": "standard",
            },
        }

    def _tool_use(self, call, toolset: bool) -> dict:  # type: ignore[no-untyped-def]
        """A tool_use block; with the computer toolset a computer call is a block named by its member."""
        block = {"type": "tool_use", "id": self.new_id("toolu"), "name": call.name, "input": call.arguments,
                 "caller": {"type": "direct"}}
        if toolset and call.name == "computer" and isinstance(call.arguments, dict):
            arguments = dict(call.arguments)
            block.update(name=str(arguments.pop("action", "")), input=arguments, toolset_name="computer")
        return block
