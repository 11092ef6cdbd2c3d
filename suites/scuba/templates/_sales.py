"""Private helpers of the sales templates: relative dates, lenient value comparisons, record look-ups and the
UI steps a person takes in the org's forms (field labels come from the org's schema, so a demonstration
follows the page when a label changes).

Not shared with other template modules (discovery skips modules whose name starts with ``_``).
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Mapping

from pytest_cua.actions import Action, Check, Click, Fill, SelectOption

from .common import first, goto, soql_str

# --- dates -------------------------------------------------------------------------------------------------

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fortyfive": 45, "sixty": 60, "ninety": 90,
}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7}


def today() -> _dt.date:
    """Today in UTC (the org stores dates and times in UTC)."""
    return _dt.datetime.now(_dt.timezone.utc).date()


def _amount(text: str) -> int | None:
    text = text.strip().replace("-", "").replace(" ", "")
    if text.isdigit():
        return int(text)
    if text in _NUMBER_WORDS:
        return _NUMBER_WORDS[text]
    for tens in ("twenty", "thirty", "forty"):  # "twentyone"
        if text.startswith(tens) and text[len(tens):] in _NUMBER_WORDS:
            return _NUMBER_WORDS[tens] + _NUMBER_WORDS[text[len(tens):]]
    return None


def duration_days(value: Any) -> int | None:
    """Days in a duration: ``10``, ``"10 days"``, ``"tendays"``, ``"two weeks"``; None when unreadable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return int(value)
    if not isinstance(value, str):
        return None
    text = value.strip().lower().replace("from today", "").replace("later", "").strip()
    m = re.fullmatch(r"([a-z0-9\- ]+?)\s*(days?|weeks?)", text)
    if m:
        n = _amount(m.group(1))
        return None if n is None else n * _UNITS[m.group(2)]
    n = _amount(text)
    return n


def resolve_date(value: Any, *, base: _dt.date | None = None, int_unit_days: int = 1) -> _dt.date | None:
    """A ground-truth date: ISO text, ``today``/``tomorrow``, ``"N days|weeks from today"``, ``"next friday"``
    (the first Friday strictly after ``base``), or a number (of ``int_unit_days`` after ``base``). ``base``
    defaults to today. None when the value cannot be read."""
    base = base or today()
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return base + _dt.timedelta(days=int(value) * int_unit_days)
    if isinstance(value, _dt.date):
        return value
    text = str(value).strip().lower()
    try:
        return _dt.date.fromisoformat(text[:10])
    except ValueError:
        pass
    text = text.replace("_", " ")
    if text in ("today", "now"):
        return base
    if text == "tomorrow":
        return base + _dt.timedelta(days=1)
    m = re.fullmatch(r"(?:the\s+)?(?:next|following)\s+(\w+?)(?:\s+after.*|\s+following.*)?", text) or \
        re.fullmatch(r"(?:the\s+)?(\w+?)\s+(?:following|after)\b.*", text)
    if m and m.group(1) in _WEEKDAYS:
        ahead = (_WEEKDAYS.index(m.group(1)) - base.weekday()) % 7 or 7
        return base + _dt.timedelta(days=ahead)
    days = duration_days(text)
    return None if days is None else base + _dt.timedelta(days=days)


def date_candidates(value: Any, *, int_unit_days: int = 1) -> set[str]:
    """ISO dates a relative ground truth may mean, from today and from yesterday (a task may cross midnight)."""
    out: set[str] = set()
    for shift in (0, 1):
        d = resolve_date(value, base=today() - _dt.timedelta(days=shift), int_unit_days=int_unit_days)
        if d is not None:
            out.add(d.isoformat())
    return out


# --- comparisons -------------------------------------------------------------------------------------------

_STOP = frozenset("a an the to for of with and on in at by from about this that is be as our their his her "
                  "it its we you i me my schedule log create add new please".split())


def words(text: Any) -> list[str]:
    """Lower-case word tokens."""
    return re.findall(r"[a-z0-9]+", str(text or "").lower())


def covers(expected: str, actual: str, *, ratio: float = 0.6) -> bool:
    """Whether ``actual`` says what ``expected`` says: most of expected's content words occur in it."""
    want = [w for w in words(expected) if w not in _STOP] or words(expected)
    if not want:
        return True
    have = set(words(actual))
    return sum(w in have for w in want) / len(want) >= ratio


def same_text(a: Any, b: Any) -> bool:
    """Equal after trimming and ignoring case and inner white space."""
    return " ".join(str(a or "").split()).lower() == " ".join(str(b or "").split()).lower()


def digits(text: Any) -> str:
    """Only the digits of a phone number."""
    return re.sub(r"\D", "", str(text or ""))


def same_number(a: Any, b: Any, tol: float = 0.005) -> bool:
    """Numbers equal within ``tol`` (``"10,000"`` and ``10000.0`` are the same)."""
    try:
        x = float(str(a).replace(",", "").replace("$", "")) if a is not None else None
        y = float(str(b).replace(",", "").replace("$", "")) if b is not None else None
    except ValueError:
        return False
    return x is not None and y is not None and abs(x - y) <= tol


def names(value: Any) -> list[str]:
    """A list of names from a list or from ``"A, B and C"``."""
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if str(v).strip()]
    parts = re.split(r",|\band\b|;", str(value or ""))
    return [p.strip() for p in parts if p.strip()]


# --- records -----------------------------------------------------------------------------------------------

def record_id(sf: Any, sobject: str, name: str, field_name: str = "Name") -> str | None:
    """The id of the first ``sobject`` whose ``field_name`` is ``name``; None when there is none."""
    rec = first(sf, f"SELECT Id FROM {sobject} WHERE {field_name} = {soql_str(name)} ORDER BY CreatedDate LIMIT 1")
    return rec["Id"] if rec else None


def require_id(sf: Any, sobject: str, name: str, field_name: str = "Name") -> str:
    """Like ``record_id`` but a missing record is an error (for solvers and demonstrations)."""
    rid = record_id(sf, sobject, name, field_name)
    if rid is None:
        raise LookupError(f"no {sobject} with {field_name} = {name!r} in the org")
    return rid


def standard_price(sf: Any, product_name: str) -> float | None:
    """The product's list price in the standard price book."""
    rec = first(sf, "SELECT UnitPrice FROM PricebookEntry WHERE Pricebook2.IsStandard = true AND Product2.Name = "
                    f"{soql_str(product_name)} LIMIT 1") or \
        first(sf, "SELECT UnitPrice FROM PricebookEntry WHERE Pricebook2.Name = 'Standard Price Book' AND "
                  f"Product2.Name = {soql_str(product_name)} LIMIT 1")
    return float(rec["UnitPrice"]) if rec and rec.get("UnitPrice") is not None else None


# --- UI steps ----------------------------------------------------------------------------------------------

def label(env: Any, sobject: str, field_name: str) -> str:
    """The label of a field as the org's forms show it."""
    try:
        return str(env.store.schema[sobject].fields[field_name].label)
    except (AttributeError, KeyError, TypeError):
        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", field_name[:-2] if field_name.endswith("Id") else field_name)



def button(name: str) -> str:
    """A button by its accessible name."""
    return f'role=button[name="{name}"]'


def link(name: str) -> str:
    """A link by its accessible name."""
    return f'role=link[name="{name}"]'


def open_list(env: Any, sobject: str) -> list[Action]:
    """Open an object's list page."""
    return [goto(env, f"/lightning/o/{sobject}/list")]


def open_record(env: Any, sobject: str, rid: str) -> list[Action]:
    """Open a record page."""
    return [goto(env, f"/lightning/r/{sobject}/{rid}/view")]


def fill_form(env: Any, sobject: str, values: Mapping[str, Any]) -> list[Action]:
    """Fill a record form: text and lookups are typed, picklists selected, booleans checked, dates typed as
    ``YYYY-MM-DD``."""
    actions: list[Action] = []
    schema = getattr(getattr(env, "store", None), "schema", None)
    for name, value in values.items():
        target = f"label={label(env, sobject, name)}"
        ftype = None
        try:
            ftype = schema[sobject].fields[name].type if schema is not None else None
        except KeyError:
            ftype = None
        if ftype == "picklist":
            actions.append(SelectOption(target, str(value)))
        elif ftype == "boolean":
            if value:
                actions.append(Check(target))
        else:
            actions.append(Fill(target, _ui_text(value)))
    return actions


def _ui_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def save() -> list[Action]:
    """Save the form."""
    return [Click(button("Save"))]


def new_from_list(env: Any, sobject: str, values: Mapping[str, Any]) -> list[Action]:
    """List page -> New -> fill -> Save."""
    return [*open_list(env, sobject), Click(button("New")), *fill_form(env, sobject, values), *save()]


def new_related(env: Any, child: str, values: Mapping[str, Any], *, button_name: str | None = None) -> list[Action]:
    """On a parent's record page: the related list's New button -> fill -> Save."""
    name = button_name or f"New {_child_label(env, child)}"
    return [Click(button(name)), *fill_form(env, child, values), *save()]


def _child_label(env: Any, sobject: str) -> str:
    try:
        return str(env.store.schema[sobject].label)
    except (AttributeError, KeyError, TypeError):
        return sobject
