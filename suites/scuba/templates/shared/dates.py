"""Ground-truth dates read as SCUBA's scorers read them: ISO dates, ``next friday``, quote durations and terms
such as ``1 year 30 days`` counted from today (``relative_date``)."""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from dateutil.relativedelta import relativedelta


class DateFormError(ValueError):
    """A ground-truth date the parser cannot read: the task's problem, never the agent's."""


# SCUBA's create_quote reads its expiration from local variables of these names, all in days (S:69-74)
QUOTE_DURATIONS = {"fivedays": 5, "tendays": 10, "oneweek": 7, "twoweeks": 14, "onemonth": 30}

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "fifteen": 15, "eighteen": 18,
    "twenty": 20, "thirty": 30, "forty": 40, "fortyfive": 45, "sixty": 60, "ninety": 90,
}
_AMOUNT = r"\d+|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
_TERM = re.compile(rf"\b({_AMOUNT})\s*(day|week|month|year)s?\b")
_FILLER = re.compile(r"\b(?:in|from|today|now|later|and)\b|[,+]")


def today() -> _dt.date:
    """Today on this machine's clock, as SCUBA's scorers take it (``datetime.today()``)."""
    return _dt.date.today()


def relative_date(value: Any, base: _dt.date | None = None, *, number_unit: str = "day") -> _dt.date:
    """A ground-truth date read as SCUBA's scorers read it, from ``base`` (default today):

    - an ISO date (``2027-01-04``); ``today``; ``tomorrow``;
    - ``next friday``: the first Friday strictly after ``base`` (S:process_relative_date);
    - SCUBA's quote durations ``fivedays`` ... ``onemonth`` (``onemonth`` is 30 days, S:74);
    - terms ``N day(s) | week(s) | month(s) | year(s)``, summed in order with relativedelta
      (``1 month`` from Jan 31 is Feb 28/29, ``1 year 30 days``: a year, then 30 days; SV:192-207, S:385);
      numbers may be words (``three weeks from today``);
    - a bare number counts ``number_unit`` (``week`` for SCUBA's campaign start, S:430).

    Anything else raises ``DateFormError`` naming the value.
    """
    base = base or today()
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    if isinstance(value, bool) or value is None:
        raise DateFormError(f"cannot read the date {value!r}")
    if isinstance(value, (int, float)):
        return base + _term(int(value), number_unit)
    text = " ".join(str(value).strip().lower().replace("_", " ").split())
    if re.match(r"\d{4}-\d{2}-\d{2}", text):
        try:
            return _dt.date.fromisoformat(text[:10])
        except ValueError:
            raise DateFormError(f"cannot read the date {value!r}") from None
    if text in ("today", "now"):
        return base
    if text == "tomorrow":
        return base + _dt.timedelta(days=1)
    if text.replace(" ", "") in QUOTE_DURATIONS:
        return base + _dt.timedelta(days=QUOTE_DURATIONS[text.replace(" ", "")])
    m = re.fullmatch(r"(?:the\s+)?(?:next|following|coming)\s+(\w+)", text)
    if m and m.group(1) in _WEEKDAYS:
        ahead = (_WEEKDAYS.index(m.group(1)) - base.weekday()) % 7 or 7
        return base + _dt.timedelta(days=ahead)
    terms = _TERM.findall(text)
    rest = _FILLER.sub(" ", _TERM.sub(" ", text)).strip()
    if not terms or rest:
        raise DateFormError(f"cannot read the relative date {value!r}")
    result = base
    for amount, unit in terms:
        result += _term(int(amount) if amount.isdigit() else _NUMBER_WORDS[amount], unit)
    return result


def _term(n: int, unit: str) -> relativedelta:
    unit = unit.rstrip("s")
    if unit not in ("day", "week", "month", "year"):
        raise DateFormError(f"unknown date unit {unit!r}")
    return relativedelta(**{f"{unit}s": n})
