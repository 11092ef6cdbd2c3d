"""The request key: a request reduced to what decides the model's answer (``Normalised``: method, path without
credentials, the key headers, the JSON body without volatile fields and with every image replaced by its hash)
and its sha256 (``request_key``)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit

from pytest_cua.agents.models.traffic.credentials import SECRET_QUERY, Redact, identity

#: Request headers that change what the model does: part of the key and stored. Beta lists are order-free.
KEY_HEADERS = ("anthropic-version", "anthropic-beta", "openai-beta")
_LIST_HEADERS = frozenset({"anthropic-beta", "openai-beta"})

#: Top-level body fields that do not change the answer (tracking, storage, streaming and cache-routing hints);
#: dropped from the key and from the stored request. Everything else, sampling parameters included, stays.
VOLATILE_FIELDS = ("metadata", "user", "store", "stream_options", "safety_identifier", "prompt_cache_key")

_DATA_URL = re.compile(r"data:image/([A-Za-z0-9.+-]+);base64,([A-Za-z0-9+/]+={0,2})")
_EXTENSIONS = {"jpeg": "jpg", "svg+xml": "svg"}


@dataclass
class Normalised:
    """A request reduced to what decides the model's answer, plus the images it carried."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    images: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # sha256 -> (extension, bytes)

    def canonical(self) -> bytes:
        doc = {"method": self.method, "path": self.path, "headers": self.headers, "body": self.body}
        return canonical_json(doc).encode("utf-8")

    @property
    def key(self) -> str:
        return hashlib.sha256(self.canonical()).hexdigest()


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _image_ref(subtype: str, b64: str, images: dict[str, tuple[str, bytes]]) -> dict[str, str]:
    """``{"$image": sha256 of the decoded bytes}``, remembering the bytes (undecodable data: hash of the text)."""
    try:
        data = base64.b64decode(b64, validate=False)
    except (binascii.Error, ValueError):
        return {"$image": hashlib.sha256(b64.encode("utf-8")).hexdigest()}
    digest = hashlib.sha256(data).hexdigest()
    sub = subtype.lower()
    images.setdefault(digest, (_EXTENSIONS.get(sub, re.sub(r"[^a-z0-9]", "", sub) or "bin"), data))
    return {"$image": digest}


def _normalise_string(text: str, images: dict[str, tuple[str, bytes]], redact: Redact) -> Any:
    """A whole data URL becomes an image reference; one inside text becomes ``[$image:sha]``; then redaction."""
    whole = _DATA_URL.fullmatch(text)
    if whole:
        return _image_ref(whole.group(1), whole.group(2), images)
    if "data:image/" in text:
        text = _DATA_URL.sub(lambda m: f"[$image:{_image_ref(m.group(1), m.group(2), images)['$image']}]", text)
    return redact(text)


def _is_base64_image_source(value: Mapping[str, Any]) -> bool:
    """Anthropic's ``{"type": "base64", "media_type": "image/...", "data": ...}``."""
    return (value.get("type") == "base64" and isinstance(value.get("data"), str)
            and str(value.get("media_type", "")).lower().startswith("image/"))


def _normalise_value(value: Any, images: dict[str, tuple[str, bytes]], redact: Redact) -> Any:
    if isinstance(value, str):
        return _normalise_string(value, images, redact)
    if isinstance(value, list):
        return [_normalise_value(v, images, redact) for v in value]
    if isinstance(value, dict):
        if _is_base64_image_source(value):
            return _image_ref(str(value["media_type"]).split("/", 1)[1], value["data"], images)
        return {k: _normalise_value(v, images, redact) for k, v in value.items()}
    return value


def _normalise_body(body: bytes, images: dict[str, tuple[str, bytes]], redact: Redact) -> Any:
    """JSON with images replaced and volatile fields dropped; other text as ``{"$text"}``; else a hash."""
    if not body:
        return None
    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        try:
            return {"$text": redact(body.decode("utf-8"))}
        except UnicodeDecodeError:
            return {"$raw": hashlib.sha256(body).hexdigest()}
    if isinstance(parsed, dict):
        parsed = {k: v for k, v in parsed.items() if k not in VOLATILE_FIELDS}
    return _normalise_value(parsed, images, redact)


def _normalise_path(path: str, redact: Redact) -> str:
    """The path with credential query parameters dropped and the others sorted, redacted."""
    parts = urlsplit(path)
    query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                   if k.lower() not in SECRET_QUERY)
    return redact(parts.path + (f"?{urlencode(query)}" if query else ""))


def _normalise_headers(headers: Mapping[str, str]) -> dict[str, str]:
    kept: dict[str, str] = {}
    for name, value in headers.items():
        lower = name.lower()
        if lower not in KEY_HEADERS:
            continue
        if lower in _LIST_HEADERS:
            value = ",".join(sorted(v.strip() for v in value.split(",") if v.strip()))
        kept[lower] = value.strip()
    return kept


def normalise(method: str, path: str, body: bytes, headers: Mapping[str, str],
              redact: Redact | None = None) -> Normalised:
    redact = redact or identity
    images: dict[str, tuple[str, bytes]] = {}
    return Normalised(method.upper(), _normalise_path(path, redact), _normalise_headers(headers),
                       _normalise_body(body, images, redact), images)


def request_key(method: str, path: str, body: bytes, headers: Mapping[str, str], *,
                redact: Redact | None = None) -> str:
    """The sha256 of a request reduced to what decides the answer.

    ``path`` is the path after the proxy's base path (``/chat/completions`` for a base URL ending in ``/v1``),
    with its query. Normalisation: method upper-cased; query parameters sorted, credential ones (``key``,
    ``api_key``, ``token``...) dropped; a JSON body canonicalised (sorted keys, no whitespace) without the
    top-level ``VOLATILE_FIELDS``, every embedded image (a ``data:image/...;base64,...`` URL anywhere in a string,
    an Anthropic base64 image source) replaced by ``{"$image": sha256 of the decoded bytes}``; of the headers only
    ``KEY_HEADERS`` (beta lists sorted). Auth headers are never part of it. Strings pass through ``redact``
    after the images are taken out, as the proxy does.
    """
    return normalise(method, path, body, headers, redact).key
