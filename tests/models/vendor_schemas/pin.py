"""Pin the parts of the vendors' own schemas that the conformance tests validate against.

    python -m tests.models.vendor_schemas.pin --openapi PATH/openapi.json --commit SHA --date YYYY-MM-DD

- ``openai.json``: from OpenAI's OpenAPI spec (github.com/openai/openai-openapi, ``openapi.json``): the request
  bodies ``CreateResponse`` and ``CreateChatCompletionRequest``, the replies ``Response`` and
  ``CreateChatCompletionResponse``, and every schema they reference; descriptions and examples removed.
- ``anthropic.json``: from Anthropic's Python SDK installed here (``anthropic.types``): the JSON schema of the
  request parameters ``MessageCreateParamsNonStreaming`` and of the beta ones (``anthropic.types.beta``: a
  request with an ``anthropic-beta`` header, e.g. the ``computer_2025*`` tools), TypedDicts with every object
  closed (the API refuses unknown fields), and of the reply ``Message``.

Each file says where it came from (``_source``). Re-pin when the SDK or the spec moves; the tests say when.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
OPENAI_ROOTS = ("CreateResponse", "CreateChatCompletionRequest", "Response", "CreateChatCompletionResponse")
DROPPED = {"description", "example", "examples", "title", "x-oaiMeta", "x-oaiExpandable", "x-stainless-const"}


def _strip(node: Any) -> Any:
    """The schema without annotations (a property named like one, e.g. a tool's ``description``, stays)."""
    if isinstance(node, dict):
        return {k: ({name: _strip(sub) for name, sub in v.items()} if k in ("properties", "$defs") and
                    isinstance(v, dict) else _strip(v)) for k, v in node.items() if k not in DROPPED}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"].rsplit("/", 1)[-1]] if isinstance(node.get("$ref"), str) else []
        return found + [r for k, v in node.items() if k != "$ref" for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def openai_schemas(spec: dict) -> dict[str, Any]:
    schemas = spec["components"]["schemas"]
    keep: dict[str, Any] = {}
    stack = list(OPENAI_ROOTS)
    while stack:
        name = stack.pop()
        if name not in keep:
            keep[name] = _strip(schemas[name])
            stack += _refs(schemas[name])
    return dict(sorted(keep.items()))


def _close(node: Any) -> Any:
    """Every object with properties refuses others (TypedDict request parameters: the API refuses them too)."""
    if isinstance(node, dict):
        out = {k: _close(v) for k, v in node.items()}
        if out.get("type") == "object" and "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [_close(v) for v in node]
    return node


def anthropic_schemas() -> dict[str, Any]:
    import pydantic
    from anthropic.types import Message
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

    from anthropic.types.beta.message_create_params import MessageCreateParamsNonStreaming as Beta

    request = _close(pydantic.TypeAdapter(MessageCreateParamsNonStreaming).json_schema())
    beta = _close(pydantic.TypeAdapter(Beta).json_schema())
    return {"MessageCreateParams": _strip(request), "BetaMessageCreateParams": _strip(beta),
            "Message": _strip(Message.model_json_schema())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openapi", type=Path, help="openai-openapi's openapi.json")
    parser.add_argument("--commit", default="", help="the openai-openapi commit it came from")
    parser.add_argument("--date", default="", help="that commit's date")
    args = parser.parse_args()
    if args.openapi:
        spec = json.loads(args.openapi.read_text())
        out = {"_source": {"repository": "https://github.com/openai/openai-openapi", "path": "openapi.json",
                           "commit": args.commit, "date": args.date, "info.version": spec["info"]["version"],
                           "roots": list(OPENAI_ROOTS), "note": "referenced schemas only; descriptions removed"},
               "schemas": openai_schemas(spec)}
        (HERE / "openai.json").write_text(json.dumps(out, indent=None, separators=(",", ":"), sort_keys=True) + "\n")
    import anthropic

    out = {"_source": {"package": "anthropic", "version": anthropic.__version__,
                       "types": ["anthropic.types.message_create_params.MessageCreateParamsNonStreaming",
                                 "anthropic.types.beta.message_create_params.MessageCreateParamsNonStreaming",
                                 "anthropic.types.Message"],
                       "note": "pydantic JSON schema of the SDK's types; request objects closed"},
           **anthropic_schemas()}
    (HERE / "anthropic.json").write_text(json.dumps(out, indent=None, separators=(",", ":"), sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
