"""Usage normalisation per vendor, the packaged price table, name matching and cost arithmetic."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from pytest_cua.agents.base import Usage
from pytest_cua.agents.models.aliases import AS_OF as ALIASES_AS_OF
from pytest_cua.agents.models.pricing import (PRICES_FILE, PriceError, PriceTable, canonical_model,
                                              usage_from_anthropic, usage_from_openai_chat,
                                              usage_from_openai_responses)


@pytest.fixture(scope="module")
def table() -> PriceTable:
    return PriceTable.load()


def write(tmp_path, content) -> str:
    path = tmp_path / "prices.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


# --- usage normalisers -----------------------------------------------------------------------------------

RESPONSES_USAGE = {"input_tokens": 1520, "input_tokens_details": {"cached_tokens": 1000}, "output_tokens": 40,
                   "output_tokens_details": {"reasoning_tokens": 20}, "total_tokens": 1560}


def test_openai_responses_usage_from_a_dict():
    usage = usage_from_openai_responses(RESPONSES_USAGE)
    assert usage == Usage(tokens_in=1520, cached_in=1000, tokens_out=40, reasoning=20, requests=1)


def test_openai_responses_usage_from_an_sdk_object():
    sdk = SimpleNamespace(input_tokens=1520, input_tokens_details=SimpleNamespace(cached_tokens=1000),
                          output_tokens=40, output_tokens_details=SimpleNamespace(reasoning_tokens=20))
    assert usage_from_openai_responses(sdk) == usage_from_openai_responses(RESPONSES_USAGE)


def test_openai_chat_usage():
    usage = usage_from_openai_chat({"prompt_tokens": 900, "completion_tokens": 80,
                                    "prompt_tokens_details": {"cached_tokens": 512},
                                    "completion_tokens_details": {"reasoning_tokens": 64}})
    assert usage == Usage(tokens_in=900, cached_in=512, tokens_out=80, reasoning=64, requests=1)


def test_openai_chat_usage_with_null_details_as_vllm_sends():
    sdk = SimpleNamespace(prompt_tokens=700, completion_tokens=30, prompt_tokens_details=None,
                          completion_tokens_details=None)
    assert usage_from_openai_chat(sdk) == Usage(tokens_in=700, tokens_out=30, requests=1)


def test_anthropic_usage_adds_the_cache_to_the_input():
    usage = usage_from_anthropic({"input_tokens": 100, "cache_creation_input_tokens": 2000,
                                  "cache_read_input_tokens": 30000, "output_tokens": 60})
    assert usage == Usage(tokens_in=32100, cached_in=30000, cache_write=2000, tokens_out=60, requests=1)


def test_anthropic_usage_from_an_sdk_object_with_missing_cache_fields():
    sdk = SimpleNamespace(input_tokens=2100, output_tokens=60, cache_creation_input_tokens=None)
    assert usage_from_anthropic(sdk) == Usage(tokens_in=2100, tokens_out=60, requests=1)


@pytest.mark.parametrize("normalise", [usage_from_openai_responses, usage_from_openai_chat,
                                       usage_from_anthropic])
@pytest.mark.parametrize("usage", [None, {}, SimpleNamespace()])
def test_missing_usage_is_one_request_of_nothing(normalise, usage):
    assert normalise(usage) == Usage(requests=1)


# --- the packaged table ----------------------------------------------------------------------------------

def test_packaged_table_is_dated_and_has_the_surveyed_models(table):
    assert table.as_of == "2026-12-04"
    assert table.as_of == ALIASES_AS_OF, "the prices are re-checked whenever the alias table is"
    for model in ("o3", "gpt-5", "gpt-5.4", "gpt-4.1", "computer-use-preview", "claude-sonnet-4",
                  "claude-sonnet-4-5", "claude-opus-4-1", "gemini-2.5-pro", "ui-tars-1.5-7b", "opencua-7b",
                  "qwen2.5-vl-72b"):
        price = table.price(model)
        assert price is not None and price.model == model and price.source, model


def test_packaged_figures(table):
    o3 = table.price("o3")
    assert (o3.input, o3.cached_input, o3.output) == (2.0, 0.5, 8.0)
    sonnet = table.price("claude-sonnet-4")
    assert (sonnet.input, sonnet.cache_write, sonnet.cached_input, sonnet.output) == (3.0, 3.75, 0.3, 15.0)
    assert (sonnet.long_context.above, sonnet.long_context.input, sonnet.long_context.output) == (
        200000, 6.0, 22.5)
    assert table.price("computer-use-preview").cached_input is None
    gpt54 = table.price("gpt-5.4")
    assert gpt54.estimate and not table.price("gpt-5").estimate
    assert "self-hosted" in table.price("ui-tars-1.5-7b").source


def test_prices_json_is_package_data():
    assert PRICES_FILE.name == "prices.json" and PRICES_FILE.is_file()
    text = (PRICES_FILE.parents[3] / "pyproject.toml").read_text()
    assert '"**/*.json"' in text


# --- name matching ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("o3", "o3"),
    ("O3", "o3"),
    ("o3-2025-04-16", "o3"),
    ("openai/o3", "o3"),
    ("claude-sonnet-4-20250514", "claude-sonnet-4"),
    ("anthropic/claude-sonnet-4-20250514", "claude-sonnet-4"),
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
    ("claude-sonnet-4@20250514", "claude-sonnet-4"),
    ("us.anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1"),
    ("computer-use-preview-2025-03-11", "computer-use-preview"),
    ("gpt-5.4", "gpt-5.4"),
    ("gpt-5-latest", "gpt-5"),
    ("ByteDance-Seed/UI-TARS-1.5-7B", "ui-tars-1.5-7b"),
    ("Qwen/Qwen2.5-VL-72B-Instruct", "qwen2.5-vl-72b"),
])
def test_model_names_match_the_table(table, name, expected):
    assert table.price(name).model == expected


@pytest.mark.parametrize("name", ["o3-mini", "gpt-5-mini", "gpt-4.1-nano", "claude-sonnet-4-7", "o4", "gpt",
                                  "llama-3-70b"])
def test_other_models_are_unknown_not_a_neighbour(table, name):
    assert table.price(name) is None
    assert table.cost(Usage(tokens_in=1000, tokens_out=1000, requests=1), name) == 0.0


def test_canonical_model_strips_vendor_prefixes():
    assert canonical_model(" OpenAI/o3 ") == "o3"
    assert canonical_model("anthropic.claude-sonnet-4") == "claude-sonnet-4"
    assert canonical_model("qwen2.5-vl-72b") == "qwen2.5-vl-72b"


# --- cost arithmetic (hand-computed) ---------------------------------------------------------------------

def test_openai_responses_cost_on_o3(table):
    # 520 uncached x $2 + 1000 cached x $0.50 + 40 out x $8, per 1M tokens = $0.00186
    usage = usage_from_openai_responses(RESPONSES_USAGE)
    assert table.cost(usage, "o3-2025-04-16") == pytest.approx(0.00186, rel=1e-12)


def test_openai_chat_cost_on_gpt5(table):
    # 388 x $1.25 + 512 x $0.125 + 80 x $10 = 485 + 64 + 800 = 1349 per 1M
    usage = usage_from_openai_chat({"prompt_tokens": 900, "completion_tokens": 80,
                                    "prompt_tokens_details": {"cached_tokens": 512}})
    assert table.cost(usage, "gpt-5") == pytest.approx(0.001349, rel=1e-12)


def test_cached_tokens_bill_at_the_input_rate_without_a_cached_rate(table):
    # computer-use-preview: 1520 x $3 + 40 x $12 = 4560 + 480 = 5040 per 1M
    usage = usage_from_openai_responses(RESPONSES_USAGE)
    assert table.cost(usage, "computer-use-preview") == pytest.approx(0.00504, rel=1e-12)


def test_anthropic_cache_arithmetic(table):
    # 100 x $3 + 2000 x $3.75 + 30000 x $0.30 + 60 x $15 = 300 + 7500 + 9000 + 900 = 17700 per 1M
    usage = usage_from_anthropic({"input_tokens": 100, "cache_creation_input_tokens": 2000,
                                  "cache_read_input_tokens": 30000, "output_tokens": 60})
    assert table.cost(usage, "claude-sonnet-4-20250514") == pytest.approx(0.0177, rel=1e-12)


def test_anthropic_opus_cost(table):
    # 1000 x $15 + 500 x $18.75 + 4000 x $1.50 + 200 x $75 = 15000 + 9375 + 6000 + 15000 = 45375 per 1M
    usage = usage_from_anthropic({"input_tokens": 1000, "cache_creation_input_tokens": 500,
                                  "cache_read_input_tokens": 4000, "output_tokens": 200})
    assert table.cost(usage, "claude-opus-4-1-20250805") == pytest.approx(0.045375, rel=1e-12)


def test_long_context_rates_above_the_threshold(table):
    at = Usage(tokens_in=200_000, tokens_out=1000, requests=1)
    above = Usage(tokens_in=200_001, tokens_out=1000, requests=1)
    assert table.cost(at, "claude-sonnet-4") == pytest.approx((200_000 * 3 + 1000 * 15) / 1e6)
    assert table.cost(above, "claude-sonnet-4") == pytest.approx((200_001 * 6 + 1000 * 22.5) / 1e6)


def test_long_context_counts_the_cache_toward_the_threshold(table):
    # 1000 uncached x $6 + 199_500 read x $0.60 + 500 out x $22.50 = 6000 + 119700 + 11250 per 1M
    usage = usage_from_anthropic({"input_tokens": 1000, "cache_read_input_tokens": 199_500,
                                  "output_tokens": 500})
    assert table.cost(usage, "claude-sonnet-4") == pytest.approx(0.13695, rel=1e-12)


def test_long_context_on_gemini(table):
    # 250_000 x $2.50 + 2000 x $15 = 625000 + 30000 per 1M
    usage = Usage(tokens_in=250_000, tokens_out=2000, requests=1)
    assert table.cost(usage, "gemini-2.5-pro") == pytest.approx(0.655, rel=1e-12)


def test_long_context_threshold_is_per_request_for_a_summed_usage(table):
    two_requests = Usage(tokens_in=300_000, tokens_out=0, requests=2)  # 150K each
    assert table.cost(two_requests, "claude-sonnet-4") == pytest.approx(300_000 * 3 / 1e6)


def test_long_context_cache_rates_scale_when_not_given(tmp_path):
    path = write(tmp_path, {"models": {"m": {"input": 2, "cached_input": 0.5, "output": 8,
                                             "long_context": {"above": 100, "input": 4, "output": 16}}}})
    usage = Usage(tokens_in=200, cached_in=100, tokens_out=10, requests=1)
    # 100 x $4 + 100 x ($0.50 x 2) + 10 x $16 = 400 + 100 + 160 per 1M
    assert PriceTable.load(path).cost(usage, "m") == pytest.approx(660 / 1e6, rel=1e-12)


def test_self_hosted_models_cost_nothing(table):
    usage = Usage(tokens_in=10**6, tokens_out=10**6, requests=1)
    assert table.cost(usage, "xlangai/OpenCUA-7B") == 0.0
    assert table.price("xlangai/OpenCUA-7B") is not None


# --- override files --------------------------------------------------------------------------------------

def test_override_file_lays_its_models_over_the_packaged_table(tmp_path):
    path = write(tmp_path, {"as_of": "2027-01-15", "models": {"o3": {"input": 1, "output": 4},
                                                             "my-model": {"input": 10, "output": 20}}})
    loaded = PriceTable.load(path)
    assert loaded.as_of == "2027-01-15"
    assert (loaded.price("o3").input, loaded.price("o3").cached_input) == (1.0, None)
    assert loaded.price("my-model-20270101").output == 20.0
    assert loaded.price("gpt-5").input == 1.25


def test_override_without_a_date_keeps_the_packaged_one(tmp_path):
    assert PriceTable.load(write(tmp_path, {"models": {}})).as_of == PriceTable.load().as_of


def test_per_other_than_a_million_is_normalised(tmp_path):
    path = write(tmp_path, {"per": 1000, "models": {"m": {"input": 0.002, "output": 0.008}}})
    price = PriceTable.load(path).price("m")
    assert (price.input, price.output) == pytest.approx((2.0, 8.0))


@pytest.mark.parametrize("content, field", [
    ({"models": {"o3": {"input": "two", "output": 8}}}, "models.o3.input"),
    ({"models": {"o3": {"output": 8}}}, "models.o3.input"),
    ({"models": {"o3": {"input": -1, "output": 8}}}, "models.o3.input"),
    ({"models": {"o3": {"input": 2, "output": True}}}, "models.o3.output"),
    ({"models": {"o3": {"input": 2, "output": 8, "cache_reads": 0.5}}}, "models.o3.cache_reads"),
    ({"models": {"o3": {"input": 2, "output": 8, "cached_input": 0.5, "cache_read": 0.5}}}, "models.o3"),
    ({"models": {"m": {"input": 2, "output": 8, "long_context": {"input": 4, "output": 16}}}},
     "models.m.long_context.above"),
    ({"models": {"m": {"input": 2, "output": 8, "long_context": {"above": 10, "input": 4}}}},
     "models.m.long_context.output"),
    ({"models": {"m": {"input": 2, "output": 8, "estimate": "yes"}}}, "models.m.estimate"),
    ({"models": {"m": [2, 8]}}, "models.m"),
    ({"models": {"O3": {"input": 2, "output": 8}, "o3": {"input": 2, "output": 8}}}, "models.o3"),
    ({"models": [1]}, "models"),
    ({}, "models"),
    ({"as_of": "last week", "models": {}}, "as_of"),
    ({"currency": "EUR", "models": {}}, "currency"),
    ({"per": 0, "models": {}}, "per"),
    ({"pricing": {}, "models": {}}, "pricing"),
])
def test_bad_override_file_names_the_file_and_the_field(tmp_path, content, field):
    path = write(tmp_path, content)
    with pytest.raises(PriceError) as info:
        PriceTable.load(path)
    assert str(info.value).startswith(f"{path}: {field}:")


def test_override_that_is_not_json_names_the_file(tmp_path):
    path = write(tmp_path, "{not json")
    with pytest.raises(PriceError, match="not valid JSON") as info:
        PriceTable.load(path)
    assert path in str(info.value)


def test_missing_override_file_names_the_file(tmp_path):
    path = tmp_path / "nope.json"
    with pytest.raises(PriceError, match="cannot read the price file") as info:
        PriceTable.load(path)
    assert str(path) in str(info.value)
