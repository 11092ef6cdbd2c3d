"""Near-miss end states for the parity harness, generated per release task from its oracle's end state.

Each near miss is the oracle solver run on ground truths derived from the task's own (and, for the families
that need another record, from the other release tasks of its template), in order, on the untouched seed; the
end state is then scored against the task's real ground truth by SCUBA's evaluator and by ours (both scorings).
A change the solver or the org cannot take (a date the API refuses, a name taken twice) is no end state: the
harness skips it and says so. The families:

- ``case``: a text value in another letter case (``Acme Corp`` -> ``acme corp``);
- ``spaces``: a text value with surrounding spaces;
- ``dash``: a hyphen in a text value typed as an en dash (as instructions print them: ``LyLyApple – HQ``);
- ``date+1`` / ``date-1``: a date a day later or earlier (ISO, also for a relative ``next friday``);
  ``date_format``: the same date written ``M/D/YYYY``;
- ``number``: a number in another format (``5000`` -> ``5000.0``, ``"5000"`` -> ``"5,000"``);
- ``duplicate``: the oracle's records made twice;
- ``again``: the oracle's change, then the same change with one value as another task gives it (a second,
  different record beside the right one: an Event after the right Event);
- ``wrong_first`` / ``wrong_also``: another task's change of the template made before / after the right one
  (the right change on a wrong record as well);
- ``other``: one value replaced by the value another task of the template gives that key (a wrong parent, a
  wrong user, a wrong object);
- ``extra``: a list (or comma-separated list) with one more entry, taken from another task's list;
- ``order``: a list (or comma-separated list) in the reverse order;
- ``answer``: a question's answer in a sentence, in lower case, with a full stop, with thousands separators, or
  said twice.

A state's name is ``family:key`` (``case:list_name``), or the family alone where no key is changed; DEVIATIONS.md's
parity table names states so.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

FAMILIES = ("case", "spaces", "dash", "date+1", "date-1", "date_format", "number", "duplicate", "again",
            "wrong_first", "wrong_also", "other", "extra", "order", "answer")
MAX_KEYS = 3  # keys changed per family and task (the first ones of the ground truth)
WRONG_RECORDS = 2  # other tasks whose change is made beside the right one (wrong_first, wrong_also)
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}$")
_RELATIVE = re.compile(r"(next|following|coming|today|tomorrow|\b\d+\s*(day|week|month|year)s?\b)", re.I)


@dataclass(frozen=True)
class NearMiss:
    """One near-miss end state: the ground truths the solver makes in order, or a question's answer."""

    family: str
    key: str | None
    truths: tuple[Mapping[str, Any], ...] = ()
    answer: str | None = None
    what: str = ""
    others: tuple[str, ...] = field(default=())  # the other tasks whose ground truths it uses

    @property
    def name(self) -> str:
        return f"{self.family}:{self.key}" if self.key else self.family


def other_case(text: str) -> str:
    """The text in another letter case: lower case, or (already lower) with capitalised words."""
    if text.lower() != text:
        return text.lower()
    return re.sub(r"[A-Za-z]+", lambda m: m.group(0).capitalize(), text)


def _date_of(key: str, value: Any) -> _dt.date | None:
    """The date a ground-truth value means (an ISO date, or a relative date in a key that names a date)."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if _ISO.match(text):
        try:
            return _dt.date.fromisoformat(text)
        except ValueError:
            return None
    if "date" not in key.lower() or not _RELATIVE.search(text):
        return None
    from suites.scuba.templates.shared.dates import DateFormError, relative_date

    try:
        return relative_date(text)
    except DateFormError:
        return None


def _texts(truth: Mapping[str, Any]) -> list[str]:
    return [k for k, v in truth.items() if isinstance(v, str) and v.strip() and _date_of(k, v) is None
            and not v.strip().lstrip("-").replace(".", "", 1).isdigit()]


def _numbers(truth: Mapping[str, Any]) -> list[str]:
    return [k for k, v in truth.items() if not isinstance(v, bool) and
            (isinstance(v, (int, float)) or isinstance(v, str) and v.strip().isdigit() and len(v.strip()) >= 4)]


def _lists(truth: Mapping[str, Any]) -> list[str]:
    return [k for k, v in truth.items() if isinstance(v, list) and v and all(isinstance(x, str) for x in v)
            or isinstance(v, str) and ", " in v]


def _number_forms(value: Any) -> Iterator[Any]:
    if isinstance(value, int):
        yield float(value)
    elif isinstance(value, float):
        yield int(value) if value.is_integer() else round(value, 1)
    elif isinstance(value, str):
        yield f"{int(value.strip()):,}"


def _first_leaf(value: Any, part: str = "") -> str | None:
    """The first non-empty text inside a list or mapping (its values, depth first) that holds ``part``."""
    items = list(value.values()) if isinstance(value, Mapping) else value if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, str) and item.strip() and part in item:
            return item
        if isinstance(item, (list, Mapping)):
            found = _first_leaf(item, part)
            if found is not None:
                return found
    return None


def _deep_replace(value: Any, old: str, new: str) -> Any:
    """``value`` with ``old`` replaced by ``new`` in every text, mapping keys included."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, Mapping):
        return {_deep_replace(k, old, new): _deep_replace(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep_replace(v, old, new) for v in value]
    return value


def _replace_leaf(value: Any, new: str) -> Any:
    """``value`` with its first leaf (``_first_leaf``) replaced by ``new``."""
    done = False

    def walk(item: Any) -> Any:
        nonlocal done
        if done:
            return item
        if isinstance(item, str) and item.strip():
            done = True
            return new
        if isinstance(item, Mapping):
            return {k: walk(v) for k, v in item.items()}
        if isinstance(item, list):
            return [walk(v) for v in item]
        return item

    return walk(value)


def _with(truth: Mapping[str, Any], key: str, value: Any) -> dict[str, Any]:
    return {**truth, key: value}


def near_misses(truth: Mapping[str, Any], others: Sequence[tuple[str, Mapping[str, Any]]], *,
                question: bool = False) -> list[NearMiss]:
    """Every near miss of a task with ground truth ``truth``; ``others``: (task id, ground truth) of the other
    release tasks of its template, in task order."""
    if question:
        answer = str(truth.get("answer", ""))
        out = [NearMiss("answer", "sentence", answer=f"The answer is {answer}.", what="in a sentence"),
               NearMiss("answer", "lower", answer=answer.lower(), what="in lower case"),
               NearMiss("answer", "stop", answer=f"{answer}.", what="with a full stop"),
               NearMiss("answer", "twice", answer=f"{answer}; {answer}", what="said twice"),
               NearMiss("answer", "label", answer=f"Answer: {answer}", what="after a label"),
               NearMiss("answer", "quoted", answer=f'"{answer}"', what="in quotes"),
               NearMiss("answer", "bold", answer=f"**{answer}**", what="in Markdown bold"),
               NearMiss("answer", "spaces", answer=f"  {answer}\n", what="with surrounding white space")]
        if answer.upper() != answer.lower():
            out.append(NearMiss("answer", "upper", answer=answer.upper(), what="in upper case"))
        digits = re.sub(r"\d{4,}", lambda m: f"{int(m.group(0)):,}", answer)
        if digits != answer:
            out.append(NearMiss("answer", "thousands", answer=digits, what="with thousands separators"))
        return out
    out: list[NearMiss] = []
    for key in _texts(truth)[:MAX_KEYS]:
        value = str(truth[key])
        if other_case(value) != value:
            out.append(NearMiss("case", key, (_with(truth, key, other_case(value)),),
                                what=f"{value!r} -> {other_case(value)!r}"))
        out.append(NearMiss("spaces", key, (_with(truth, key, f"  {value} "),), what=f"{value!r} with spaces"))
    for key in [k for k, v in truth.items() if isinstance(v, (list, Mapping))][:MAX_KEYS]:
        leaf = _first_leaf(truth[key])  # a name inside a list or a hierarchy: the first one
        if leaf is None:
            continue
        if other_case(leaf) != leaf:
            out.append(NearMiss("case", key, (_with(truth, key, _replace_leaf(truth[key], other_case(leaf))),),
                                what=f"{leaf!r} -> {other_case(leaf)!r} in {key}"))
        out.append(NearMiss("spaces", key, (_with(truth, key, _replace_leaf(truth[key], f"  {leaf} ")),),
                            what=f"{leaf!r} with spaces in {key}"))
    for key in [k for k, v in truth.items() if isinstance(v, (str, list, Mapping))]:
        value = truth[key]
        if _date_of(key, value) is not None or _first_leaf(value, "-") is None:
            continue
        dashed = _deep_replace(value, "-", "\u2013")  # every name in it, as an instruction prints them
        out.append(NearMiss("dash", key, (_with(truth, key, dashed),), what=f"{key}: hyphens typed as en dashes"))
    for key, value in truth.items():
        day = _date_of(key, value)
        if day is None:
            continue
        for family, delta in (("date+1", 1), ("date-1", -1)):
            moved = (day + _dt.timedelta(days=delta)).isoformat()
            out.append(NearMiss(family, key, (_with(truth, key, moved),), what=f"{value!r} -> {moved}"))
        written = f"{day.month}/{day.day}/{day.year}"
        out.append(NearMiss("date_format", key, (_with(truth, key, written),), what=f"{value!r} -> {written!r}"))
    for key in _numbers(truth)[:MAX_KEYS]:
        for form in _number_forms(truth[key]):
            out.append(NearMiss("number", key, (_with(truth, key, form),), what=f"{truth[key]!r} -> {form!r}"))
    out.append(NearMiss("duplicate", None, (dict(truth), dict(truth)), what="the oracle's change made twice"))
    differing = [(tid, t) for tid, t in others if dict(t) != dict(truth)]
    for tid, other in differing[:WRONG_RECORDS]:  # another task's record, one or two
        key = tid
        out.append(NearMiss("wrong_first", key, (dict(other), dict(truth)), what=f"{tid}'s change, then the right "
                            "one", others=(tid,)))
        out.append(NearMiss("wrong_also", key, (dict(truth), dict(other)), what=f"the right change, then {tid}'s",
                            others=(tid,)))
    changed_keys = 0
    for key in truth:
        if changed_keys >= MAX_KEYS:
            break
        found = next(((tid, t[key]) for tid, t in differing if key in t and t[key] != truth[key]), None)
        if found is None:
            continue
        changed_keys += 1
        out.append(NearMiss("other", key, (_with(truth, key, found[1]),), what=f"{truth[key]!r} -> {found[1]!r} "
                            f"(from {found[0]})", others=(found[0],)))
        out.append(NearMiss("again", key, (dict(truth), _with(truth, key, found[1])),
                            what=f"the right change, then again with {key} {found[1]!r} (from {found[0]})",
                            others=(found[0],)))
    for key in _lists(truth)[:MAX_KEYS]:
        value = truth[key]
        mine = list(value) if isinstance(value, list) else [v.strip() for v in str(value).split(",")]
        extra = next((x for _, t in differing for x in (t.get(key) if isinstance(t.get(key), list) else
                                                        [v.strip() for v in str(t.get(key) or "").split(",")])
                      if x and x not in mine), None)
        if extra is None:
            continue
        longer: Any = [*mine, extra] if isinstance(value, list) else ", ".join([*mine, extra])
        out.append(NearMiss("extra", key, (_with(truth, key, longer),), what=f"{key} with {extra!r} more"))
    for key, value in list(truth.items()):
        entries = value if isinstance(value, list) else [v.strip() for v in value.split(",")] \
            if isinstance(value, str) and ", " in value else []
        if len(entries) < 2 or entries[::-1] == entries:
            continue
        reverse: Any = entries[::-1] if isinstance(value, list) else ", ".join(entries[::-1])
        out.append(NearMiss("order", key, (_with(truth, key, reverse),), what=f"{key} in the reverse order"))
    return out
