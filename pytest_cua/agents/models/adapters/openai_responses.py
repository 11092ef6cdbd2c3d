"""OpenAI's Responses API (``client.responses.create``): function tools, the computer-use preview tool and
the GA ``computer`` tool with batched actions.

The whole conversation is sent every turn (no ``previous_response_id``), with the model's output items passed
back as they came, so that old screenshots can be pruned (``--cua-history``). Old ``computer_call_output``
screenshots become a tiny placeholder image (the protocol requires an image there); old user images become
text.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_cua.agents.models.adapters.base import (OMITTED_IMAGE, Adapter, dump, function_call, openai_client,
                                                    placeholder_png)
from pytest_cua.agents.models.conversation import Call, Reply, UserTurn
from pytest_cua.agents.models.pricing import usage_from_openai_responses

REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5", "gpt-6", "computer-use-preview")


def is_reasoning_model(model: str) -> bool:
    name = model.split("/")[-1]
    return name.startswith(REASONING_PREFIXES)


class OpenAIResponsesAdapter(Adapter):
    vendor = "openai"
    protocol = "responses"

    def _make_client(self) -> Any:
        return openai_client(self.client_settings)

    def _append_user(self, turn: UserTurn) -> None:
        for result in turn.results:
            if result.kind == "computer":
                output = {"type": "computer_screenshot",
                          "image_url": result.image.data_url() if result.image else placeholder_png()}
                if result.image is not None:  # the protocol needs an image here: an old one becomes a placeholder
                    self.aging(output, {"type": "computer_screenshot", "image_url": placeholder_png()})
                item: dict[str, Any] = {"type": "computer_call_output", "call_id": result.call_id,
                                        "acknowledged_safety_checks": list(result.safety_checks), "output": output}
                self.messages.append(item)
                if result.text and result.text != "ok":
                    # the screenshot is the computer call's output; what went wrong is said as text
                    self.messages.append(_user_message(f"(about the last computer action) {result.text}", None))
            else:
                self.messages.append({"type": "function_call_output", "call_id": result.call_id,
                                      "output": result.text})
        images = ([turn.image] if turn.image is not None else []) + list(turn.more_images)
        if turn.text or images or turn.observation_text:
            message = _user_message(turn.text, None)
            if turn.observation_text:
                message["content"].append(self.observation_part({"type": "input_text", "text": turn.observation_text}))
            for image in images:
                message["content"].append(self.aging(_image_part(image), {"type": "input_text", "text": OMITTED_IMAGE}))
            self.messages.append(message)

    def _tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        if self.computer is not None:
            if self.computer.kind == "computer_use_preview":
                tools.append({"type": "computer_use_preview", "display_width": self.computer.display[0],
                              "display_height": self.computer.display[1],
                              "environment": self.computer.environment})
            else:
                tools.append({"type": "computer"})
        for spec in self.tools:
            tools.append({"type": "function", "name": spec.name, "description": spec.description,
                          "parameters": spec.parameters, "strict": False})
        return tools

    def _request(self) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "instructions": self.system, "input": list(self.messages),
                                   "max_output_tokens": self.generation.max_tokens}
        tools = self._tools()
        if tools:
            request["tools"] = tools
        if self.computer is not None and self.computer.kind == "computer_use_preview":
            # computer-use-preview requires it; the spec marks the field deprecated, so nothing else sends it
            request["truncation"] = "auto"
        if is_reasoning_model(self.model):
            effort = self.generation.options.get("reasoning_effort")
            summary = str(self.generation.options.get("reasoning_summary", "auto"))
            request["reasoning"] = {}
            if summary != "off" and not self.summary_refused:
                request["reasoning"]["summary"] = "concise" if self.model.startswith("computer-use") else summary
            if effort:
                request["reasoning"]["effort"] = str(effort)
            # nothing kept at the vendor; reasoning items travel back encrypted
            request["store"] = False
            request["include"] = ["reasoning.encrypted_content"]
        if self.generation.temperature is not None:
            request["temperature"] = self.generation.temperature
        return request

    summary_refused = False  # the organisation may not get reasoning summaries (an unverified one)

    def _create(self, client: Any, request: dict[str, Any], headers: dict[str, str]) -> Any:
        try:
            return client.responses.create(**request, extra_headers=headers or None)
        except Exception as exc:
            if not _refuses_summary(exc) or "summary" not in request.get("reasoning", {}):
                raise
            self.summary_refused = True  # ask once: from now on, no summary for this run
            request["reasoning"].pop("summary")
            return client.responses.create(**request, extra_headers=headers or None)

    def _parse(self, response: Any) -> Reply:
        reply = Reply(usage=usage_from_openai_responses(getattr(response, "usage", None)))
        texts, thoughts, raw_items, refusals = [], [], [], []
        for item in getattr(response, "output", None) or []:
            data = dump(item, exact=True)
            raw_items.append(data)
            self.messages.append(_as_input(data))
            kind = data.get("type")
            if kind == "reasoning":
                thoughts += [s.get("text", "") for s in data.get("summary") or [] if isinstance(s, dict)]
            elif kind == "message":
                texts += [c.get("text", "") for c in data.get("content") or []
                          if isinstance(c, dict) and c.get("type") == "output_text"]
                refusals += [str(c.get("refusal") or "") for c in data.get("content") or []
                             if isinstance(c, dict) and c.get("type") == "refusal"]
            elif kind == "function_call":
                reply.calls.append(_function_call(data))
            elif kind == "computer_call":
                action = data.get("actions") if data.get("actions") is not None else data.get("action")
                arguments = {"actions": action} if isinstance(action, list) else action
                reply.calls.append(Call(id=str(data.get("call_id") or data.get("id")), name="computer",
                                        arguments=arguments if isinstance(arguments, dict) else None,
                                        raw_arguments=json.dumps(arguments), kind="computer",
                                        error=None if isinstance(arguments, dict) else "computer_call has no action",
                                        safety_checks=list(data.get("pending_safety_checks") or [])))
        reply.text = "\n".join(t for t in texts if t)
        reply.reasoning = "\n".join(t for t in thoughts if t)
        details = getattr(response, "incomplete_details", None)
        incomplete = getattr(response, "status", None) == "incomplete"
        reason = getattr(details, "reason", None) if not isinstance(details, dict) else details.get("reason")
        reply.truncated = incomplete and reason == "max_output_tokens"
        if refusals:
            reply.refusal = "\n".join(r for r in refusals if r) or "(the model refused, with no text)"
        elif incomplete and reason == "content_filter":
            reply.refusal = "(the response was stopped by OpenAI's content filter)"
            reply.refusal_category = "content_filter"
        reply.raw = {"id": getattr(response, "id", None), "status": getattr(response, "status", None),
                     "output": raw_items}
        return reply


def _refuses_summary(exc: BaseException) -> bool:
    """OpenAI's 400 for an organisation that may not have reasoning summaries (param reasoning.summary)."""
    body = getattr(exc, "body", None)
    param = body.get("param") if isinstance(body, dict) else getattr(exc, "param", None)
    return getattr(exc, "status_code", None) == 400 and (
        param == "reasoning.summary" or "reasoning summar" in str(exc).lower())


def _user_message(text: str | None, image: Any) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if text:
        content.append({"type": "input_text", "text": text})
    if image is not None:
        content.append(_image_part(image))
    return {"role": "user", "content": content}


def _image_part(image: Any) -> dict[str, Any]:
    return {"type": "input_image", "image_url": image.data_url(), "detail": "high"}


def _function_call(data: dict[str, Any]) -> Call:
    return function_call(str(data.get("call_id") or data.get("id")), str(data.get("name")), data.get("arguments") or "")


def _as_input(item: dict[str, Any]) -> dict[str, Any]:
    """An output item as the next request's input item: exactly as it came (a copy)."""
    copy: dict[str, Any] = json.loads(json.dumps(item))
    return copy
