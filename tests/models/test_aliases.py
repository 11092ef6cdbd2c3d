"""The alias table against the vendor SDKs installed here: every alias names a model the SDK lists and does
not mark deprecated, each model has its computer tool, prefixed names expand aliases, retired aliases say
what to use instead. When a new SDK drops or deprecates a model these fail: the table (``aliases.py``, dated
``AS_OF``) and the price table are then due."""

from __future__ import annotations

import inspect
import re
import typing

import pytest

from pytest_cua.agents.models.aliases import (ANTHROPIC_MODELS, AS_OF, CHECKED_WITH, OPENAI_MODELS, RETIRED, TOOLSET,
                                              beta_for_tool, computer_tool_for)
from pytest_cua.agents.models.pricing import PriceTable
from pytest_cua.agents.models.settings import ModelSettings
from pytest_cua.agents.registry import AgentRegistry, UnknownAgent


def _literals(alias: object) -> set[str]:
    """Every string literal in a (nested) Literal/Union type alias."""
    out: set[str] = set()
    for arg in typing.get_args(alias):
        if isinstance(arg, str):
            out.add(arg)
        else:
            out |= _literals(arg)
    return out


def _deprecated_in(module: object) -> set[str]:
    """The model names a generated OpenAI module's "Deprecated values" note lists."""
    source = inspect.getsource(module)  # type: ignore[arg-type]
    _, _, note = source.partition("Deprecated values")
    return set(re.findall(r'"([^"]+)"', note))


def openai_models() -> tuple[set[str], set[str]]:
    from openai.types.shared import chat_model, responses_model

    listed = _literals(chat_model.ChatModel) | _literals(responses_model.ResponsesModel)
    return listed, _deprecated_in(chat_model) | _deprecated_in(responses_model)


def anthropic_models() -> tuple[set[str], set[str]]:
    from anthropic._data import DEPRECATED_MODELS
    from anthropic.types import ModelParam

    return _literals(ModelParam), set(DEPRECATED_MODELS)


@pytest.mark.parametrize("alias,model", sorted(OPENAI_MODELS.items()))
def test_each_openai_alias_is_listed_and_not_deprecated(alias: str, model: str) -> None:
    listed, deprecated = openai_models()
    assert model in listed, f"{alias} -> {model}: the installed openai SDK does not list it; update aliases.py"
    assert model not in deprecated, f"{alias} -> {model}: the installed openai SDK marks it deprecated"


@pytest.mark.parametrize("alias,model", sorted(ANTHROPIC_MODELS.items()))
def test_each_claude_alias_is_listed_not_deprecated_and_has_its_computer_tool(alias: str, model: str) -> None:
    listed, deprecated = anthropic_models()
    assert model in listed, f"{alias} -> {model}: the installed anthropic SDK does not list it; update aliases.py"
    assert model not in deprecated, f"{alias} -> {model}: the installed anthropic SDK marks it deprecated"
    version, beta = computer_tool_for(model)
    assert version == TOOLSET and beta == ""  # every current Claude model takes the GA toolset


def test_the_current_models_have_aliases() -> None:
    """The newest computer-capable models the SDKs list are reachable by alias (the families, not every
    dated snapshot): a new family in the SDK fails here until it has one."""
    listed, deprecated = anthropic_models()
    families = {re.sub(r"-\d{8}$", "", m) for m in listed - deprecated}
    missing = sorted(f for f in families if re.match(r"claude-(opus|sonnet|haiku|fable|mythos)-[45]", f)
                     and f not in ANTHROPIC_MODELS)
    assert not missing, f"Claude models without an alias: {missing}"
    listed, deprecated = openai_models()
    gpt = {m for m in listed - deprecated if re.fullmatch(r"gpt-(5\.[4-9]|6(\.\d)?)(-(mini|sol|terra|luna|astra))?", m)}
    missing = sorted(gpt - set(OPENAI_MODELS))
    assert not missing, f"GPT models that take the computer tool without an alias: {missing}"


def test_every_alias_has_a_price_of_the_same_date() -> None:
    table = PriceTable.load()
    assert table.as_of == AS_OF
    unpriced = [a for a, m in {**OPENAI_MODELS, **ANTHROPIC_MODELS}.items() if table.price(m) is None]
    assert not unpriced, f"aliases without a price: {unpriced}"


def test_the_sdks_checked_are_the_ones_installed() -> None:
    import anthropic
    import openai

    for name, module in (("openai", openai), ("anthropic", anthropic)):
        assert module.__version__.split(".")[0] == CHECKED_WITH[name].split(".")[0], (
            f"{name} {module.__version__} is installed, the alias table was checked with {CHECKED_WITH[name]}")


def test_pyproject_bounds_the_sdk_majors_tested() -> None:
    import tomllib
    from pathlib import Path

    extras = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["models"]
    for name, version in CHECKED_WITH.items():
        major = int(version.split(".")[0])
        assert f"{name}>={major}.0,<{major + 1}" in extras, (name, extras)


@pytest.mark.parametrize("text,provider,model", [
    ("claude-haiku-4-5", "anthropic", "claude-haiku-4-5-20251001"),
    ("anthropic:claude-haiku-4-5", "anthropic", "claude-haiku-4-5-20251001"),
    ("openai:gpt-5.5", "openai", "gpt-5.5"),
    ("anthropic:claude-sonnet-4-20250514", "anthropic", "claude-sonnet-4-20250514"),  # any id, as given
    ("openai:o3", "openai", "o3"),  # a retired alias's model is still reachable by its id
])
def test_prefixed_names_expand_aliases(text: str, provider: str, model: str) -> None:
    spec = AgentRegistry().resolve(text, {"model_settings": ModelSettings()})
    assert (spec.provider, spec.model) == (provider, model)


@pytest.mark.parametrize("alias", sorted(RETIRED))
def test_a_retired_alias_says_what_to_use(alias: str) -> None:
    assert alias not in OPENAI_MODELS and alias not in ANTHROPIC_MODELS
    with pytest.raises(UnknownAgent, match=f"agent '{re.escape(alias)}': the alias is retired; use "):
        AgentRegistry().resolve(alias)


@pytest.mark.parametrize("model,version,beta", [
    ("claude-sonnet-5-5", TOOLSET, ""), ("claude-opus-4-8", TOOLSET, ""), ("claude-haiku-4-5-20251001", TOOLSET, ""),
    ("claude-sonnet-4-20250514", "computer_20250124", "computer-use-2025-01-24"),
    ("claude-3-5-sonnet-20241022", "computer_20241022", "computer-use-2024-10-22"),
])
def test_each_model_is_matched_with_its_computer_tool(model: str, version: str, beta: str) -> None:
    assert computer_tool_for(model) == (version, beta)


def test_a_beta_tool_on_a_toolset_only_model_is_refused() -> None:
    assert beta_for_tool("computer_20251124", "claude-opus-4-8") == "computer-use-2025-11-24"
    with pytest.raises(ValueError, match="takes only computer_toolset_20260801"):
        beta_for_tool("computer_20251124", "claude-sonnet-5-5")
    with pytest.raises(ValueError, match="unknown computer tool version"):
        beta_for_tool("computer_2099", "claude-sonnet-5-5")
