"""Deterministic fake usage: prompt tokens from the request's size (``IMAGE_TOKENS`` per image) and the prompt
cache that reports an earlier prompt's prefix as cached (``PromptCache``)."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

from pytest_cua.testing.fake_models.conversation import DATA_URL, Conversation

IMAGE_TOKENS = 1000
"""Fake prompt tokens charged per image."""


def strip_images(value: Any) -> tuple[Any, int]:
    """``value`` with image payloads replaced by a placeholder, and how many images it held."""
    if isinstance(value, str):
        return ("<image>", 1) if DATA_URL.match(value) else (value, 0)
    if isinstance(value, dict):
        if value.get("type") == "base64" and "data" in value:
            return {**value, "data": "<image>"}, 1
        stripped = {key: strip_images(item) for key, item in value.items()}
        return {key: item for key, (item, _) in stripped.items()}, sum(n for _, n in stripped.values())
    if isinstance(value, list):
        stripped_items = [strip_images(item) for item in value]
        return [item for item, _ in stripped_items], sum(n for _, n in stripped_items)
    return value, 0


def fake_tokens(value: Any) -> int:
    """Fake token count: a quarter of the JSON length, plus ``IMAGE_TOKENS`` per image."""
    stripped, images = strip_images(value)
    return len(json.dumps(stripped, sort_keys=True, ensure_ascii=False)) // 4 + IMAGE_TOKENS * images


def canonical(value: Any) -> Any:
    """``value`` without null fields and ``cache_control`` marks (neither changes the cached prompt)."""
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items() if v is not None and k != "cache_control"}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


def cache_mark(value: Any) -> dict | None:
    """The Anthropic ``cache_control`` breakpoint a segment carries, if any."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("cache_control"), dict):
        return value["cache_control"]
    return next((mark for mark in map(cache_mark, value.values()) if mark is not None), None)


@dataclass
class PromptUsage:
    """Prompt tokens of a request: in all, read from the cache, written to it (and with which TTL)."""

    total: int
    cached: int
    written: int
    ttl: str = "5m"


class PromptCache:
    """Prefixes of earlier prompts, by a hash chain over their segments."""

    def __init__(self) -> None:
        self._prefixes: set[str] = set()
        self._lock = threading.Lock()

    @staticmethod
    def _chain(seed: str, segments: list[Any]) -> list[str]:
        """The hash of every prefix of ``segments``."""
        chain, digest = [], hashlib.sha256(seed.encode()).hexdigest()
        for segment in segments:
            text = json.dumps(canonical(segment), sort_keys=True, ensure_ascii=False)
            digest = hashlib.sha256((digest + text).encode()).hexdigest()
            chain.append(digest)
        return chain

    def account(self, seed: str, conv: Conversation) -> PromptUsage:
        """Count the request's prompt tokens, the cached prefix, and remember its cacheable prefixes."""
        tokens = [fake_tokens(canonical(segment)) for segment in conv.segments]
        chain = self._chain(seed, conv.segments)
        implicit = conv.breakpoints is None
        breakpoints = ([len(chain) - 1] if chain else []) if conv.breakpoints is None else conv.breakpoints
        limit = max(breakpoints, default=-1) + 1
        with self._lock:
            hit = next((k for k in range(limit, 0, -1) if chain[k - 1] in self._prefixes), 0)
            self._prefixes.update(chain[b] for b in breakpoints)
        written = 0 if implicit else sum(tokens[:limit]) - sum(tokens[:hit])
        mark = cache_mark(conv.segments[limit - 1]) if limit and not implicit else None
        return PromptUsage(sum(tokens), sum(tokens[:hit]), written, (mark or {}).get("ttl", "5m"))
