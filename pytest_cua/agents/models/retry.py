"""Retries of model calls: backoff that honours Retry-After, within a bounded budget.

Rate limits (429), server errors (5xx), Anthropic's overloaded (529), timeouts and dropped connections are
retried; everything else (a bad request, a wrong key, a replay miss) is not. When the budget (attempts or
seconds of waiting) runs out, ``ModelUnavailable`` is raised: an ``agent`` error outcome (infrastructure,
rerunnable), never a failed task. The vendor SDKs' own retries are switched off (``max_retries=0``) so that
this is the one policy.
"""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

from pytest_cua.agents.base import AgentError
from pytest_cua.agents.models.traffic import MISS_HEADER

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
TRANSIENT_NAMES = ("APITimeoutError", "APIConnectionError", "ConnectError", "ReadTimeout", "RemoteProtocolError")


class ModelUnavailable(AgentError):
    """The model API kept failing for the whole retry budget (an ``agent`` error: rerun the task)."""


class ModelRequestError(AgentError):
    """The model API refused the request for a reason a retry cannot fix (bad request, auth, replay miss)."""


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 8
    budget_s: float = 300.0  # total seconds of waiting between attempts
    base_s: float = 1.0
    max_backoff_s: float = 60.0
    jitter: float = 0.25


def status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


def headers_of(exc: BaseException) -> dict[str, str]:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return {}
    try:
        return {str(k).lower(): str(v) for k, v in headers.items()}
    except Exception:  # noqa: BLE001 - an odd header object: no hints
        return {}


def retry_after_s(headers: dict[str, str], now: float | None = None) -> float | None:
    """Seconds the server asked to wait: ``retry-after-ms``, ``retry-after`` (seconds or an HTTP date)."""
    if "retry-after-ms" in headers:
        try:
            return max(0.0, float(headers["retry-after-ms"]) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (now if now is not None else time.time()))


def is_retryable(exc: BaseException) -> bool:
    if headers_of(exc).get("x-should-retry") == "false":
        return False  # the server (or our replay proxy) says a retry cannot help
    status = status_of(exc)
    if status is not None:
        return status in RETRYABLE_STATUS or status >= 500
    return type(exc).__name__ in TRANSIENT_NAMES or isinstance(exc, (TimeoutError, ConnectionError))


def describe_error(exc: BaseException) -> str:
    status = status_of(exc)
    message = str(getattr(exc, "message", "") or exc)
    return f"{type(exc).__name__}" + (f" {status}" if status else "") + f": {message[:300]}"


def call_with_retries(fn: Callable[[], T], policy: RetryPolicy, *, what: str,
                      sleep: Callable[[float], None] = time.sleep) -> tuple[T, int]:
    """Call ``fn`` until it succeeds; return its value and the number of attempts.

    The budget counts the seconds since the first attempt (attempts and waits), plus every wait asked for;
    ``what`` names the call in errors (``"openai gpt-5.5, task create_lead_1 step 3"``)."""
    started = time.monotonic()
    waited = 0.0
    attempt = 0
    while True:
        attempt += 1
        try:
            return fn(), attempt
        except Exception as exc:  # noqa: BLE001 - classified below
            headers = headers_of(exc)
            if headers.get(MISS_HEADER):
                raise ModelRequestError(f"{what}: {getattr(exc, 'message', None) or exc}") from exc
            if not is_retryable(exc):
                raise ModelRequestError(f"{what}: the model API refused the request: {describe_error(exc)}") from exc
            hinted = retry_after_s(headers)
            backoff = min(policy.max_backoff_s, policy.base_s * (2 ** (attempt - 1)))
            delay = hinted if hinted is not None else backoff * (1 + policy.jitter * random.random())
            spent = max(waited, time.monotonic() - started)
            if attempt >= policy.max_attempts or spent + delay > policy.budget_s:
                raise ModelUnavailable(
                    f"{what}: gave up after {attempt} attempt(s) and {spent:.1f} s "
                    f"(budget {policy.max_attempts} attempts, {policy.budget_s:g} s): {describe_error(exc)}") from exc
            sleep(delay)
            waited += delay


def retry_policy_from(options: dict[str, Any]) -> RetryPolicy:
    """``--cua-agent-option retries=N`` / ``retry_budget_s=S`` / ``retry_base_s=S``."""
    return RetryPolicy(max_attempts=int(options.get("retries", RetryPolicy.max_attempts)),
                       budget_s=float(options.get("retry_budget_s", RetryPolicy.budget_s)),
                       base_s=float(options.get("retry_base_s", RetryPolicy.base_s)))
