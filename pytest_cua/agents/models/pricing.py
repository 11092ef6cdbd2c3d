"""Usage normalisation across vendors and a dated, overridable price table.

``usage_from_openai_responses``, ``usage_from_openai_chat`` and ``usage_from_anthropic`` turn one response's
``usage`` (a dict or an SDK object) into a ``Usage`` whose ``tokens_in`` includes cached tokens.
``PriceTable.load()`` reads the packaged ``prices.json`` (dollars per ``per`` tokens, dated ``as_of``), or
lays an override file over it; ``PriceTable.cost`` prices a ``Usage``:

    (tokens_in - cached_in - cache_write) * input + cached_in * cached_input + cache_write * cache_write
    + tokens_out * output

with the long-context rates when a request's input is over the model's threshold. Reasoning tokens are part
of ``tokens_out`` and bill as output.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Mapping, NamedTuple, TypeGuard, cast

from pytest_cua.agents.base import Usage

PRICES_FILE = Path(__file__).with_name("prices.json")
PER_MILLION = 1_000_000

# What may follow a table name in a model name that still means that model: a date ("-20250514",
# "-2025-04-16", "@20250514", "-0125"), "-latest", "-instruct", a deployment version ("-v1:0").
_VERSION_SUFFIX = re.compile(r"(?:[-@](?:\d{8}|\d{4}-\d{2}-\d{2}|\d{4}|latest|instruct|v\d+(?::\d+)?))+")
# Vendor prefixes: "openai/o3", "anthropic/claude-...", Bedrock's "anthropic.claude-..." and "us.anthropic...".
_VENDOR_PREFIX = re.compile(r"^(?:.*/)?(?:(?:[a-z]{2}\.)?anthropic\.)?")

_TOP_KEYS = {"as_of", "source", "currency", "per", "models"}
_MODEL_KEYS = {"input", "output", "cached_input", "cache_read", "cache_write", "long_context", "estimate",
               "source"}
_LONG_KEYS = {"above", "input", "output", "cached_input", "cache_read", "cache_write"}


class PriceError(ValueError):
    """A price file that cannot be read or has a bad field."""


@dataclass(frozen=True)
class LongContext:
    """Rates (USD per 1M tokens) for a request whose input is over ``above`` tokens. A cache rate left out
    scales the base one by ``input`` / the base input rate."""

    above: int
    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None


@dataclass(frozen=True)
class ModelPrice:
    """One model's rates in USD per 1M tokens. ``cached_input`` is the cache-read rate (OpenAI's cached
    input, Anthropic's cache read); a missing cache rate bills at ``input``."""

    model: str
    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None
    long_context: LongContext | None = None
    estimate: bool = False
    source: str = ""

    def cost(self, usage: Usage) -> float:
        """The dollars of ``usage``. The long-context threshold is per request, so for a ``Usage`` summing
        several requests it is compared with their mean input (exact only per response)."""
        input_rate, cached_rate, write_rate, output_rate = self._rates(usage)
        uncached = max(0, usage.tokens_in - usage.cached_in - usage.cache_write)
        total = (uncached * input_rate + usage.cached_in * cached_rate + usage.cache_write * write_rate
                 + usage.tokens_out * output_rate)
        return total / PER_MILLION

    def _rates(self, usage: Usage) -> tuple[float, float, float, float]:
        """(input, cache read, cache write, output) rates for ``usage``."""
        cached = self.input if self.cached_input is None else self.cached_input
        write = self.input if self.cache_write is None else self.cache_write
        long = self.long_context
        if long is None or usage.tokens_in / max(1, usage.requests) <= long.above:
            return self.input, cached, write, self.output
        factor = long.input / self.input if self.input else 1.0
        long_cached = cached * factor if long.cached_input is None else long.cached_input
        long_write = write * factor if long.cache_write is None else long.cache_write
        return long.input, long_cached, long_write, long.output


class _PriceFile(NamedTuple):
    as_of: str | None
    source: str | None
    models: dict[str, ModelPrice]


class PriceTable:
    """Model prices, looked up by exact name, then by the longest table name that the model name extends
    with a date or version suffix (``claude-sonnet-4-20250514`` is ``claude-sonnet-4``; ``o3-mini`` is not
    ``o3``)."""

    def __init__(self, models: Mapping[str, ModelPrice], *, as_of: str, source: str = "") -> None:
        self.models = dict(models)
        self.as_of = as_of
        self.source = source

    @classmethod
    def load(cls, path: str | Path | None = None) -> PriceTable:
        """The packaged table, or (given ``path``) the packaged table with that file's models laid over it;
        the file's ``as_of`` and ``source``, when present, replace the packaged ones."""
        packaged = _read_table(PRICES_FILE, override=False)
        override = _read_table(Path(path), override=True) if path is not None else _PriceFile(None, None, {})
        return cls({**packaged.models, **override.models}, as_of=override.as_of or packaged.as_of or "",
                   source=override.source or packaged.source or "")

    def price(self, model: str) -> ModelPrice | None:
        """The price of ``model``, or None when the table does not know it (callers should warn)."""
        name = canonical_model(model)
        if name in self.models:
            return self.models[name]
        known = [key for key in self.models
                 if name.startswith(key) and _VERSION_SUFFIX.fullmatch(name[len(key):])]
        return self.models[max(known, key=len)] if known else None

    def cost(self, usage: Usage, model: str) -> float:
        """The dollars of ``usage`` on ``model``; 0.0 for a model the table does not know."""
        price = self.price(model)
        return price.cost(usage) if price else 0.0


def canonical_model(model: str) -> str:
    """``model`` lower-cased without a vendor prefix (``openai/o3`` -> ``o3``)."""
    return _VENDOR_PREFIX.sub("", model.strip().lower(), count=1)


# --- usage normalisers -----------------------------------------------------------------------------------

def usage_from_openai_responses(usage: Mapping[str, Any] | object | None) -> Usage:
    """One Responses API call: ``input_tokens`` (cached included), ``input_tokens_details.cached_tokens``,
    ``output_tokens``, ``output_tokens_details.reasoning_tokens``."""
    return Usage(tokens_in=_tokens(usage, "input_tokens"),
                 cached_in=_tokens(usage, "input_tokens_details", "cached_tokens"),
                 tokens_out=_tokens(usage, "output_tokens"),
                 reasoning=_tokens(usage, "output_tokens_details", "reasoning_tokens"), requests=1)


def usage_from_openai_chat(usage: Mapping[str, Any] | object | None) -> Usage:
    """One chat-completions call (OpenAI, vLLM, Gemini's OpenAI endpoint): ``prompt_tokens`` (cached
    included), ``prompt_tokens_details.cached_tokens``, ``completion_tokens``,
    ``completion_tokens_details.reasoning_tokens``."""
    return Usage(tokens_in=_tokens(usage, "prompt_tokens"),
                 cached_in=_tokens(usage, "prompt_tokens_details", "cached_tokens"),
                 tokens_out=_tokens(usage, "completion_tokens"),
                 reasoning=_tokens(usage, "completion_tokens_details", "reasoning_tokens"), requests=1)


def usage_from_anthropic(usage: Mapping[str, Any] | object | None) -> Usage:
    """One Messages API call. Anthropic's ``input_tokens`` excludes the cache, so ``tokens_in`` is
    ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens``."""
    uncached = _tokens(usage, "input_tokens")
    written = _tokens(usage, "cache_creation_input_tokens")
    read = _tokens(usage, "cache_read_input_tokens")
    return Usage(tokens_in=uncached + written + read, cached_in=read, cache_write=written,
                 tokens_out=_tokens(usage, "output_tokens"), requests=1)


def _tokens(usage: object, *path: str) -> int:
    """The count at ``path`` in a dict or an SDK object; 0 where a field is missing or None."""
    value: object = usage
    for name in path:
        if value is None:
            return 0
        value = value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)
    return int(cast(Any, value)) if value else 0


# --- price files -----------------------------------------------------------------------------------------

def _read_table(path: Path, *, override: bool) -> _PriceFile:
    """A validated price file: ``as_of``, ``source`` and ``models`` (name -> ModelPrice per 1M tokens). An
    override file needs only ``models``."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PriceError(f"{path}: cannot read the price file: {exc}") from exc
    except ValueError as exc:
        raise PriceError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(raw, dict):
        raise PriceError(f"{path}: expected a JSON object, got {type(raw).__name__}")
    _no_unknown(raw, _TOP_KEYS, path, "")
    for key in ("as_of", "source"):
        if (key in raw or not override) and not isinstance(raw.get(key), str):
            raise PriceError(f"{path}: {key}: expected a string, got {raw.get(key)!r}")
    if "as_of" in raw:
        try:
            date.fromisoformat(raw["as_of"])
        except ValueError:
            raise PriceError(f"{path}: as_of: expected a date like 2026-11-30, got {raw['as_of']!r}") from None
    if raw.get("currency", "USD") != "USD":
        raise PriceError(f"{path}: currency: only USD is supported, got {raw['currency']!r}")
    per = raw.get("per", PER_MILLION)
    if not _is_number(per) or per <= 0:
        raise PriceError(f"{path}: per: expected a positive number of tokens, got {per!r}")
    models = raw.get("models")
    if not isinstance(models, dict):
        raise PriceError(f"{path}: models: expected an object of model prices, got {models!r}")
    parsed: dict[str, ModelPrice] = {}
    for name, entry in models.items():
        key = canonical_model(name)
        if key in parsed:
            raise PriceError(f"{path}: models.{name}: duplicate of another model name ({key!r})")
        parsed[key] = _model_price(key, entry, PER_MILLION / per, path, f"models.{name}")
    return _PriceFile(raw.get("as_of"), raw.get("source"), parsed)


def _model_price(name: str, entry: object, scale: float, path: Path, where: str) -> ModelPrice:
    if not isinstance(entry, dict):
        raise PriceError(f"{path}: {where}: expected an object of rates, got {entry!r}")
    _no_unknown(entry, _MODEL_KEYS, path, where)
    long = entry.get("long_context")
    if long is not None:
        long = _long_context(long, scale, path, f"{where}.long_context")
    estimate = entry.get("estimate", False)
    if not isinstance(estimate, bool):
        raise PriceError(f"{path}: {where}.estimate: expected true or false, got {estimate!r}")
    source = entry.get("source", "")
    if not isinstance(source, str):
        raise PriceError(f"{path}: {where}.source: expected a string, got {source!r}")
    return ModelPrice(model=name, input=_required(entry, "input", scale, path, where),
                      output=_required(entry, "output", scale, path, where),
                      cached_input=_cache_read(entry, scale, path, where),
                      cache_write=_rate(entry, "cache_write", scale, path, where),
                      long_context=long, estimate=estimate, source=source)


def _long_context(entry: object, scale: float, path: Path, where: str) -> LongContext:
    if not isinstance(entry, dict):
        raise PriceError(f"{path}: {where}: expected an object, got {entry!r}")
    _no_unknown(entry, _LONG_KEYS, path, where)
    above = entry.get("above")
    if not isinstance(above, int) or isinstance(above, bool) or above <= 0:
        raise PriceError(f"{path}: {where}.above: expected a positive number of tokens, got {above!r}")
    return LongContext(above=above, input=_required(entry, "input", scale, path, where),
                       output=_required(entry, "output", scale, path, where),
                       cached_input=_cache_read(entry, scale, path, where),
                       cache_write=_rate(entry, "cache_write", scale, path, where))


def _cache_read(entry: dict[str, Any], scale: float, path: Path, where: str) -> float | None:
    """``cached_input`` (OpenAI's name) or ``cache_read`` (Anthropic's): the same rate, at most one given."""
    if "cached_input" in entry and "cache_read" in entry:
        raise PriceError(f"{path}: {where}: give cached_input or cache_read, not both")
    key = "cache_read" if "cache_read" in entry else "cached_input"
    return _rate(entry, key, scale, path, where)


def _rate(entry: dict[str, Any], key: str, scale: float, path: Path, where: str) -> float | None:
    """The rate at ``key`` per 1M tokens, or None when it is not given."""
    return None if entry.get(key) is None else _required(entry, key, scale, path, where)


def _required(entry: dict[str, Any], key: str, scale: float, path: Path, where: str) -> float:
    value = entry.get(key)
    if not _is_number(value) or value < 0:
        raise PriceError(f"{path}: {where}.{key}: expected a non-negative number, got {value!r}")
    return float(value) * scale


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _no_unknown(entry: dict[str, Any], allowed: set[str], path: Path, where: str) -> None:
    unknown = sorted(set(entry) - allowed)
    if unknown:
        place = f"{where}.{unknown[0]}" if where else unknown[0]
        raise PriceError(f"{path}: {place}: unknown field (known: {', '.join(sorted(allowed))})")
