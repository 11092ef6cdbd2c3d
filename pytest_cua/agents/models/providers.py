"""The model providers: entry points of the ``pytest_cua.agents`` group, each with its model aliases.

=================  ====================  ===========================================  ==========================
provider           protocol              aliases (``--agent ALIAS``)                  styles (default first)
=================  ====================  ===========================================  ==========================
openai             Responses             gpt-6.2-astra ... gpt-5.2 (``aliases``)     browser; computer (gpt-5.4+)
                                         computer-use-preview                         computer
anthropic          Messages              claude-opus-5-5, claude-sonnet-5-5, ...      computer, browser
                                         claude-haiku-4-5 (``aliases``)
gemini             chat completions      gemini-2.5-pro                               browser
openai-compatible  chat completions      ui-tars-1.5-7b, opencua-7b, qwen2.5-vl-72b   computer (the VLM grammar)
                   (``--cua-model-url``) any other model: ``openai-compatible:MODEL``  browser
=================  ====================  ===========================================  ==========================

The OpenAI and Anthropic aliases are dated (``aliases.AS_OF``): each names a model the SDK lists and does not
mark deprecated. ``PROVIDER:ALIAS`` expands the alias too; ``PROVIDER:MODEL`` sends any other model id as given.
A provider's ``deprecated`` aliases (o3, gpt-5, gpt-4.1, claude-opus-4-5) run, with a warning, until the vendor's
shutdown date (``aliases.DEPRECATED``, ``pytest_cua.agents.deprecation``).

API keys come from the vendors' usual variables (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``GEMINI_API_KEY``
or ``GOOGLE_API_KEY``, ``OPENAI_COMPATIBLE_API_KEY`` for a server that wants one; ``--cua-agent-option
api_key_env=NAME`` reads another variable). A key is never written anywhere: reports, trajectories and
recordings go through redaction, and recordings never store request headers that carry it.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from pytest_cua.agents.models.aliases import ANTHROPIC_MODELS, DEPRECATED, OPENAI_MODELS, RETIRED, ga_computer
from pytest_cua.agents.models.settings import ModelSettings, check_agent_options

if TYPE_CHECKING:
    from pytest_cua.agents.deprecation import Deprecation
    from pytest_cua.agents.models.adapters.base import Adapter
    from pytest_cua.agents.models.agent import ModelAgent
    from pytest_cua.agents.models.styles.base import Style
    from pytest_cua.agents.registry import AgentSpec

REPLAY_KEY = "replayed-no-key"


class ProviderError(ValueError):
    """A model agent that cannot run as configured (the message says what to set)."""


class Provider:
    name: ClassVar[str] = ""
    protocol: ClassVar[str] = ""
    models: ClassVar[Mapping[str, str]] = {}
    #: aliases of earlier tables that are gone: what to use instead (``--agent`` says so)
    retired: ClassVar[Mapping[str, str]] = {}
    #: aliases whose model the vendor shuts down on a date: they run until then (``agents.deprecation``)
    deprecated: ClassVar[Mapping[str, "Deprecation"]] = {}
    key_env: ClassVar[tuple[str, ...]] = ()
    default_base_url: ClassVar[str | None] = None
    key_optional: ClassVar[bool] = False
    #: send default_base_url to the SDK (else the SDK's own default, which honours OPENAI_BASE_URL etc.)
    pass_default_url: ClassVar[bool] = False

    # -- what a model can do --------------------------------------------------------------------------
    @classmethod
    def styles(cls, model: str) -> tuple[str, ...]:
        return ("browser",)

    @classmethod
    def takes_temperature(cls, model: str) -> bool:
        return True

    # -- entry point ----------------------------------------------------------------------------------
    @classmethod
    def validate(cls, spec: "AgentSpec") -> None:
        """Raise ProviderError when the run cannot work: missing key, a style the model has not, ..."""
        cls._plan(spec)

    @classmethod
    def from_spec(cls, spec: "AgentSpec") -> "ModelAgent":
        from pytest_cua.agents.models.agent import ModelAgent

        model, style, settings, key, base_url = cls._plan(spec)
        from pytest_cua.redaction import register_secret

        if key not in ("EMPTY", REPLAY_KEY):
            register_secret(key)  # an SDK error that quotes the key is redacted like any other secret
        client = cls._client(settings, key, base_url)
        prices = cls._prices(settings)

        def build() -> tuple["Adapter", "Style"]:
            # keep_images: the steps whose observations stay, the current one and --cua-history past ones
            adapter = cls.adapter_class()(model, client, cls._generation(model, settings),
                                          keep_images=settings.history + 1, price=prices.cost)
            built = cls._style(style, model, adapter, settings)
            built.observe = settings.observe
            return adapter, built

        proxy = None
        if settings.record_dir or settings.replay_dir:
            from pytest_cua.agents.models.traffic import TrafficProxy
            from pytest_cua.redaction import redact

            upstream = base_url or cls.default_base_url
            match = settings.options.get("replay_match", "key+position")
            proxy = (TrafficProxy("record", settings.record_dir, upstream, redact=redact) if settings.record_dir
                     else TrafficProxy("replay", settings.replay_dir, upstream, redact=redact,  # type: ignore[arg-type]
                                       by_position=match == "key+position"))
        return ModelAgent(provider=cls.name, model=model, build=build, settings=settings, proxy=proxy,
                          prices=prices)

    @classmethod
    def _plan(cls, spec: "AgentSpec") -> tuple[str, str, ModelSettings, str, str | None]:
        settings = spec.options.get("model_settings") or ModelSettings()
        check_agent_options(settings.options)
        model = spec.model or ""
        if not model:
            raise ProviderError(f"agent {spec.text!r}: name a model, e.g. {cls.name}:MODEL "
                                f"(aliases: {', '.join(sorted(cls.models)) or 'none'})")
        styles = cls.styles(model)
        style = settings.style or styles[0]
        if style not in styles:
            raise ProviderError(f"--cua-agent-style {style}: {model} works in the {' or '.join(styles)} style only")
        if settings.observe is not None:
            from pytest_cua.agents.models.observation_settings import check_style

            problem = check_style(settings.observe, style, pixels=style == "computer")
            if problem:
                raise ProviderError(f"{problem} ({model})")
        if settings.temperature_given and not cls.takes_temperature(model) and settings.temperature != 1.0:
            raise ProviderError(f"--cua-temperature {settings.temperature:g}: {model} takes only its default "
                                "temperature (1.0)")
        budget = settings.options.get("thinking_budget")
        max_tokens = settings.max_tokens or cls.default_max_tokens(model)
        if budget and int(budget) >= max_tokens:
            raise ProviderError(f"--cua-agent-option thinking_budget={budget}: must be below the output limit "
                                f"of {max_tokens} tokens (--cua-max-tokens)")
        if settings.max_cost or settings.max_cost_task:
            prices = cls._prices(settings)
            if prices.price(model) is None:
                raise ProviderError(f"--cua-max-cost: no price is known for {model} (price table as of "
                                    f"{prices.as_of}); give one with --cua-prices FILE")
        key = cls._key(settings)
        if cls.default_base_url is None and not settings.base_url and not settings.replay_dir:
            raise ProviderError(f"agent {spec.text!r}: give the server with --cua-model-url "
                                "(e.g. http://127.0.0.1:8000/v1 for vLLM)")
        return model, style, settings, key, settings.base_url or (cls.default_base_url if cls.pass_default_url
                                                                  else None)

    @classmethod
    def _key(cls, settings: ModelSettings) -> str:
        if settings.replay_dir:
            return REPLAY_KEY
        names = (settings.options["api_key_env"],) if settings.options.get("api_key_env") else cls.key_env
        for name in names:
            value = os.environ.get(name)
            if value:
                return value
        if cls.key_optional:
            return "EMPTY"
        raise ProviderError(f"{cls.name}: no API key: set {' or '.join(names)} (or replay recorded traffic with "
                            "--cua-model-replay DIR)")

    @classmethod
    def _generation(cls, model: str, settings: ModelSettings) -> Any:
        from pytest_cua.agents.models.adapters.base import Generation

        return Generation(temperature=settings.temperature if cls.takes_temperature(model) else None,
                          max_tokens=settings.max_tokens or cls.default_max_tokens(model),
                          options=dict(settings.options))

    @classmethod
    def default_max_tokens(cls, model: str) -> int:
        """Output tokens per call when --cua-max-tokens is not given: reasoning tokens count against it."""
        return 4096

    @classmethod
    def _client(cls, settings: ModelSettings, key: str, base_url: str | None) -> Any:
        from pytest_cua.agents.models.adapters.base import ClientSettings
        from pytest_cua.agents.models.retry import retry_policy_from

        return ClientSettings(api_key=key, base_url=base_url, retry=retry_policy_from(settings.options),
                              timeout_s=float(settings.options.get("timeout_s", 120)))

    @classmethod
    def _prices(cls, settings: ModelSettings) -> Any:
        from pytest_cua.agents.models.pricing import PriceTable

        return PriceTable.load(settings.prices)

    @classmethod
    def adapter_class(cls) -> type["Adapter"]:
        raise NotImplementedError

    @classmethod
    def _style(cls, style: str, model: str, adapter: "Adapter", settings: ModelSettings) -> "Style":
        from pytest_cua.agents.models.styles.browser import BrowserStyle

        if style == "browser":
            return BrowserStyle(adapter, dict(settings.options))
        raise ProviderError(f"{cls.name}: no {style} style for {model}")


def _name(model: str) -> str:
    return model.split("/")[-1]


class OpenAIProvider(Provider):
    """OpenAI models over the Responses API."""

    name = "openai"
    protocol = "responses"
    models = OPENAI_MODELS
    retired = {k: v for k, v in RETIRED.items() if not k.startswith("claude")}
    deprecated = {k: v for k, v in DEPRECATED.items() if v.vendor == "OpenAI"}
    key_env = ("OPENAI_API_KEY",)
    default_base_url = "https://api.openai.com/v1"

    @classmethod
    def styles(cls, model: str) -> tuple[str, ...]:
        name = _name(model)
        if name.startswith("computer-use-preview"):
            return ("computer",)
        if ga_computer(name):
            return ("browser", "computer")
        return ("browser",)

    @classmethod
    def takes_temperature(cls, model: str) -> bool:
        from pytest_cua.agents.models.adapters.openai_responses import is_reasoning_model

        return not is_reasoning_model(model)

    @classmethod
    def default_max_tokens(cls, model: str) -> int:
        if _name(model).startswith("computer-use-preview"):
            return PREVIEW_MAX_OUTPUT
        return 4096 if cls.takes_temperature(model) else 32768

    @classmethod
    def _plan(cls, spec: "AgentSpec") -> tuple[str, str, ModelSettings, str, str | None]:
        planned = super()._plan(spec)
        model, settings = planned[0], planned[2]
        if _name(model).startswith("computer-use-preview") and (settings.max_tokens or 0) > PREVIEW_MAX_OUTPUT:
            raise ProviderError(f"--cua-max-tokens {settings.max_tokens}: {model} writes at most "
                                f"{PREVIEW_MAX_OUTPUT} output tokens")
        return planned

    @classmethod
    def adapter_class(cls) -> type["Adapter"]:
        from pytest_cua.agents.models.adapters.openai_responses import OpenAIResponsesAdapter

        return OpenAIResponsesAdapter

    @classmethod
    def _style(cls, style: str, model: str, adapter: "Adapter", settings: ModelSettings) -> "Style":
        if style == "computer":
            from pytest_cua.agents.models.styles.computer import ComputerStyle

            kind = "computer_use_preview" if _name(model).startswith("computer-use-preview") else "computer"
            return ComputerStyle(adapter, dict(settings.options), tool_kind=kind)
        return super()._style(style, model, adapter, settings)


#: computer-use-preview's documented output limit (its context window is 8,192 tokens)
PREVIEW_MAX_OUTPUT = 1024

#: Claude models for which thinking "enabled" (a manual budget) is deprecated in favour of "adaptive"
ADAPTIVE_THINKING = re.compile(r"claude-(opus-4-[6-9]|sonnet-4-[6-9]|(opus|sonnet|haiku)-5|fable|mythos)")


class AnthropicProvider(Provider):
    """Claude models over the Messages API."""

    name = "anthropic"
    protocol = "messages"
    models = ANTHROPIC_MODELS
    retired = {k: v for k, v in RETIRED.items() if k.startswith("claude")}
    deprecated = {k: v for k, v in DEPRECATED.items() if v.vendor == "Anthropic"}
    key_env = ("ANTHROPIC_API_KEY",)
    default_base_url = "https://api.anthropic.com"

    @classmethod
    def styles(cls, model: str) -> tuple[str, ...]:
        return ("computer", "browser")

    @classmethod
    def default_max_tokens(cls, model: str) -> int:
        return 8192

    @classmethod
    def adapter_class(cls) -> type["Adapter"]:
        from pytest_cua.agents.models.adapters.anthropic_messages import AnthropicMessagesAdapter

        return AnthropicMessagesAdapter

    @classmethod
    def _plan(cls, spec: "AgentSpec") -> tuple[str, str, ModelSettings, str, str | None]:
        planned = super()._plan(spec)
        model, settings = planned[0], planned[2]
        if settings.options.get("thinking_budget") and ADAPTIVE_THINKING.match(_name(model)):
            raise ProviderError(f"--cua-agent-option thinking_budget: thinking 'enabled' with a budget is "
                                f"deprecated for {model}; use --cua-agent-option thinking=adaptive")
        if planned[1] == "computer":
            cls._computer_tool(planned[0], planned[2])
        return planned

    @classmethod
    def _computer_tool(cls, model: str, settings: ModelSettings) -> tuple[str, str]:
        from pytest_cua.agents.models.aliases import beta_for_tool, computer_tool_for

        try:
            chosen = settings.options.get("computer_tool")
            return (chosen, beta_for_tool(chosen, model)) if chosen else computer_tool_for(model)
        except ValueError as exc:
            raise ProviderError(str(exc)) from None

    @classmethod
    def _style(cls, style: str, model: str, adapter: "Adapter", settings: ModelSettings) -> "Style":
        if style == "computer":
            from pytest_cua.agents.models.styles.computer import ComputerStyle

            version, beta = cls._computer_tool(model, settings)
            return ComputerStyle(adapter, dict(settings.options), tool_kind=version, beta=beta or None)
        return super()._style(style, model, adapter, settings)


class ChatProvider(Provider):
    protocol = "chat"

    @classmethod
    def takes_temperature(cls, model: str) -> bool:
        from pytest_cua.agents.models.adapters.openai_responses import is_reasoning_model

        return not is_reasoning_model(model)  # OpenAI's reasoning models refuse a temperature on this route too

    @classmethod
    def adapter_class(cls) -> type["Adapter"]:
        from pytest_cua.agents.models.adapters.openai_chat import OpenAIChatAdapter

        return OpenAIChatAdapter


class GeminiProvider(ChatProvider):
    """Gemini over Google's OpenAI-compatible endpoint."""

    name = "gemini"
    models = {"gemini-2.5-pro": "gemini-2.5-pro"}
    key_env = ("GEMINI_API_KEY", "GOOGLE_API_KEY")

    @classmethod
    def default_max_tokens(cls, model: str) -> int:
        return 32768  # a thinking model: its thoughts count against the limit
    default_base_url = "https://generativelanguage.googleapis.com/v1beta/openai"
    pass_default_url = True


VLM_MODELS = {"ui-tars-1.5-7b": "ByteDance-Seed/UI-TARS-1.5-7B", "opencua-7b": "xlangai/OpenCUA-7B",
              "qwen2.5-vl-72b": "Qwen/Qwen2.5-VL-72B-Instruct"}


class OpenAICompatibleProvider(ChatProvider):
    """Any OpenAI-compatible chat-completions server (vLLM, SGLang, a gateway) at ``--cua-model-url``."""

    name = "openai-compatible"
    models = VLM_MODELS
    key_env = ("OPENAI_COMPATIBLE_API_KEY",)
    key_optional = True

    @classmethod
    def styles(cls, model: str) -> tuple[str, ...]:
        return ("computer",) if _is_vlm(model) else ("browser", "computer")

    @classmethod
    def _style(cls, style: str, model: str, adapter: "Adapter", settings: ModelSettings) -> "Style":
        if style == "computer":
            from pytest_cua.agents.models.styles.vlm import VLMStyle

            try:
                return VLMStyle(adapter, dict(settings.options), model=model)
            except ValueError as exc:
                raise ProviderError(f"{model}: {exc} (or set --cua-agent-option grammar=NAME)") from None
        return super()._style(style, model, adapter, settings)


def _is_vlm(model: str) -> bool:
    try:
        from pytest_cua.agents.models.vlm import grammar_for_model

        grammar_for_model(model)
    except ValueError:
        return False
    return True
