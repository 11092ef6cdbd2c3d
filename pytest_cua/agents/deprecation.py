"""Deprecated model aliases: a model the vendor has deprecated and shuts down on a known date.

A provider lists such aliases in its ``deprecated`` mapping (alias -> ``Deprecation``; the OpenAI and Anthropic
ones are in ``agents.models.aliases.DEPRECATED``). While the shutdown date is still ahead, ``--agent ALIAS``
resolves and runs: the spec carries the ``Deprecation``, the session issues one warning naming the shutdown date
and the replacement, and every task's record carries it (``agent.deprecation``). From the shutdown date on the
alias is a usage error that names the date and the replacement.

"Today" is the local date, or ``PYTEST_CUA_TODAY`` (``YYYY-MM-DD``) when set: what a run would do on another day.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass
from typing import Any, Mapping

#: the environment variable that stands in for today's date (``YYYY-MM-DD``)
TODAY_ENV = "PYTEST_CUA_TODAY"


@dataclass(frozen=True)
class Deprecation:
    """A deprecated model: the id sent, the vendor, the day the vendor shuts it down, what to use instead, where
    the date comes from, and how the vendor's SDK itself warns on every call with the model (the start of its
    DeprecationWarning's message; "" when it does not): the session's one warning stands for those."""

    model: str
    vendor: str
    shutdown: dt.date
    replacement: str
    source: str = ""
    sdk_warning: str = ""

    def served_on(self, day: dt.date) -> bool:
        """The vendor still serves the model on ``day``: the shutdown date is ahead (on that date it is off)."""
        return day < self.shutdown

    def warning(self, alias: str, day: dt.date) -> str:
        """The session's warning while the model is still served (``day`` before the shutdown date)."""
        left = (self.shutdown - day).days
        return (f"agent {alias!r}: {self.vendor} has deprecated {self.model} and shuts it down on "
                f"{self.shutdown.isoformat()} (in {left} day{'s' if left != 1 else ''}; today is {day.isoformat()}); "
                f"it runs until then. Use {self.replacement} instead.")

    def gone(self, text: str) -> str:
        """The warning for the model asked for by id (``PROVIDER:MODEL``) from its shutdown date on: the id is
        sent as given, as any model id is."""
        return (f"agent {text!r}: {self.vendor} shut {self.model} down on {self.shutdown.isoformat()}; the id is "
                f"sent as given and the vendor will likely refuse it. Use {self.replacement} instead.")

    def refusal(self, provider: str) -> str:
        """Why the alias no longer runs (the usage error from the shutdown date on)."""
        return (f"the alias is retired; use {self.replacement} ({self.model}: {self.vendor} shutdown "
                f"{self.shutdown.isoformat()}, passed; the id is still sent as given with {provider}:{self.model})")

    def warning_filters(self) -> tuple[str, ...]:
        """pytest ``filterwarnings`` lines that silence the SDK's warning on every call (``-W`` still wins)."""
        return (f"ignore:{re.escape(self.sdk_warning)}:DeprecationWarning",) if self.sdk_warning else ()

    def describe(self, day: dt.date) -> dict[str, Any]:
        """What a record carries (``agent.deprecation``)."""
        return {"model": self.model, "vendor": self.vendor, "shutdown": self.shutdown.isoformat(),
                "replacement": self.replacement, "served": self.served_on(day), "as_of": day.isoformat()}


def today(environ: Mapping[str, str] | None = None) -> dt.date:
    """Today's date: ``PYTEST_CUA_TODAY`` when set (ValueError naming it when it is not ``YYYY-MM-DD``), else the
    local date."""
    env = os.environ if environ is None else environ
    given = env.get(TODAY_ENV, "").strip()
    if not given:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(given)
    except ValueError:
        raise ValueError(f"{TODAY_ENV}={given!r} is not a date (YYYY-MM-DD)") from None

