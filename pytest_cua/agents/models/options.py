"""Command-line options and ini keys of the model agents (registered by the plugin's option modules)."""

from __future__ import annotations

from typing import Any

# (option, dest, ini key, type, default shown, help)
MODEL_OPTIONS: tuple[tuple[str, str, str, str, str], ...] = (
    ("--cua-agent-style", "cua_agent_style", "cua_agent_style", "browser|computer",
     "browser (element ids through function tools) or computer (pixels); default: the model's own style"),
    ("--cua-model-url", "cua_model_url", "cua_model_url", "URL",
     "base URL of the model API (a vLLM server, a gateway); default: the vendor's"),
    ("--cua-temperature", "cua_temperature", "cua_temperature", "T", "sampling temperature (default 1.0, SCUBA's)"),
    ("--cua-max-tokens", "cua_max_tokens", "cua_max_tokens", "N", "output tokens per model call (default: 32768 for reasoning models, 8192 for Claude, else 4096)"),
    ("--cua-history", "cua_history", "cua_history", "N",
     "past steps whose observations (screenshots, element lists) stay in the prompt besides the current one; "
     "older ones become a note (0: the current observation only; default 2)"),
    ("--cua-prices", "cua_prices", "cua_prices", "FILE", "price table to use instead of the packaged one"),
    ("--cua-max-cost-task", "cua_max_cost_task", "cua_max_cost_task", "USD",
     "end an episode (end state budget) once the task has cost this much"),
    ("--cua-max-cost", "cua_max_cost", "cua_max_cost", "USD",
     "cap the whole run's spend across xdist workers: tasks not started are skipped once it is reached"),
    ("--cua-safety-checks", "cua_safety_checks", "cua_safety_checks", "stop|acknowledge",
     "a vendor safety check on a model's action (OpenAI's pending_safety_checks): stop ends the episode with end "
     "state safety_check, acknowledge acknowledges it and goes on; either way it is recorded (default stop)"),
    ("--cua-model-record", "cua_model_record", "cua_model_record", "DIR",
     "record every model exchange into DIR (keyed by the normalised request)"),
    ("--cua-model-replay", "cua_model_replay", "cua_model_replay", "DIR",
     "answer model calls from DIR with no network; a request with no recording is an agent error"),
)


def add_model_options(group: Any) -> None:
    for flag, dest, ini, metavar, text in MODEL_OPTIONS:
        group.addoption(flag, dest=dest, default=None, metavar=metavar, help=f"{text} (ini: {ini})")
    group.addoption("--cua-agent-option", dest="cua_agent_option", action="append", default=None,
                    metavar="KEY=VALUE", help="a setting of the model agent, repeatable (ini: cua_agent_options, "
                                              "one KEY=VALUE per line): retries, retry_budget_s, timeout_s, "
                                              "image_size, reasoning_effort, thinking_budget, format_retries, "
                                              "computer_tool, api_key_env, ...")
    parser = getattr(group, "parser", None)
    if parser is None:
        return
    for _, _, ini, _, text in MODEL_OPTIONS:
        parser.addini(ini, text, default="")
    parser.addini("cua_agent_options", "model agent settings, one KEY=VALUE per line", type="linelist", default=[])
