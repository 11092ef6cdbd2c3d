"""Private helpers of the service and admin templates: look-ups by name that never crash on a missing
record, tooling queries, relative dates, sharing-model labels, formula normalisation and a few UI steps.

Every look-up returns None (or an empty list) when nothing matches, so evaluators can turn a missing record
into a failed milestone with a reason instead of an exception.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Iterable, Mapping, Sequence
from urllib.parse import quote

from pytest_cua.actions import Action, Click, Fill, SelectOption

from .common import first, rows, soql_str, split_name

# -- look-ups ---------------------------------------------------------------------------------------------


def tooling_rows(sf: Any, soql: str) -> list[dict[str, Any]]:
    """The records of a Tooling API query (one page is plenty for metadata-sized answers)."""
    result = sf.toolingexecute("query?q=" + quote(soql, safe=",*()='"))
    return list(result.get("records") or [])


def user_by_name(sf: Any, full_name: str, fields: str = "Id, Name, IsActive") -> dict[str, Any] | None:
    """A user by full name ("First Last"), as SCUBA's scorers find one (first and last name)."""
    first_name, last_name = split_name(full_name)
    if first_name:
        found = first(sf, f"SELECT {fields} FROM User WHERE FirstName = {soql_str(first_name)} "
                          f"AND LastName = {soql_str(last_name)}")
        if found is not None:
            return found
    return first(sf, f"SELECT {fields} FROM User WHERE Name = {soql_str(full_name)}")


def role_by_name(sf: Any, name: str) -> dict[str, Any] | None:
    """A role (UserRole) by its label."""
    return first(sf, f"SELECT Id, Name, DeveloperName, ParentRoleId FROM UserRole WHERE Name = {soql_str(name)}")


def role_group_id(sf: Any, role_name: str) -> str | None:
    """The id of the Group of type Role that stands for a role in group and queue memberships."""
    role = role_by_name(sf, role_name)
    if role is None:
        return None
    group = first(sf, f"SELECT Id FROM Group WHERE Type = 'Role' AND RelatedId = {soql_str(role['Id'])}")
    return group["Id"] if group else None


def group_members(sf: Any, group_id: str) -> tuple[set[str], set[str], set[str]]:
    """(user names, role names, public group names) of a group's or queue's members."""
    users: set[str] = set()
    roles: set[str] = set()
    groups: set[str] = set()
    ids = [m["UserOrGroupId"] for m in rows(sf, f"SELECT UserOrGroupId FROM GroupMember "
                                                f"WHERE GroupId = {soql_str(group_id)}")]
    user_ids = [i for i in ids if i.startswith("005")]
    group_ids = [i for i in ids if i.startswith("00G")]
    if user_ids:
        users = {u["Name"] for u in rows(sf, f"SELECT Name FROM User WHERE Id IN ({_in(user_ids)})")}
    if group_ids:
        for g in rows(sf, f"SELECT Id, Name, Type, Related.Name FROM Group WHERE Id IN ({_in(group_ids)})"):
            if g.get("Type") == "Role":
                related = g.get("Related") or {}
                if related.get("Name"):
                    roles.add(related["Name"])
            elif g.get("Name"):
                groups.add(g["Name"])
    return users, roles, groups


def _in(values: Iterable[str]) -> str:
    return ", ".join(soql_str(v) for v in values)


def as_list(value: Any) -> list[str]:
    """A ground-truth value that may be one string or a list of them, as a list of strings."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def same_text(a: Any, b: Any) -> bool:
    """Equal after trimming and collapsing white space, ignoring case."""
    return norm(a) == norm(b)


def norm(value: Any) -> str:
    return " ".join(str(value or "").split()).casefold()


# -- objects and their labels ----------------------------------------------------------------------------


def object_api_name(sf: Any, name: str) -> str | None:
    """An object's API name from its API name or its label (singular or plural): "Change Request" ->
    "ChangeRequest"; None when no object matches."""
    wanted = norm(name)
    for entry in sf.describe().get("sobjects", []):
        if wanted in (norm(entry.get("name")), norm(entry.get("label")), norm(entry.get("labelPlural"))):
            return str(entry["name"])
    return None


# -- organization-wide defaults --------------------------------------------------------------------------

SHARING_LABELS = {
    "Private": "Private",
    "Public Read Only": "Read",
    "Public Read/Write": "ReadWrite",
    "Public Read/Write/Transfer": "ReadWriteTransfer",
    "Public Full Access": "FullAccess",
    "Controlled by Parent": "ControlledByParent",
}


def sharing_model(value: Any) -> str:
    """The sharing model of a Setup label or model name: "Public Read Only" -> "Read"."""
    text = str(value or "").strip()
    for label, model in SHARING_LABELS.items():
        if norm(text) in (norm(label), norm(model)):
            return model
    return text


def sharing_label(model: str) -> str:
    """The Setup label of a sharing model: "Read" -> "Public Read Only"."""
    for label, value in SHARING_LABELS.items():
        if value == model:
            return label
    return model


# -- formulas ---------------------------------------------------------------------------------------------

_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'")


def normalize_formula(formula: Any) -> str:
    """A formula for comparison: no white space, case-insensitive outside string literals, ``!=`` as ``<>``,
    ``==`` as ``=``, one pair of outer parentheses dropped."""
    text = str(formula or "").strip()
    out: list[str] = []
    last = 0
    for m in _STRING.finditer(text):
        out.append(_normalize_code(text[last:m.start()]))
        out.append('"' + m.group(0)[1:-1] + '"')
        last = m.end()
    out.append(_normalize_code(text[last:]))
    result = "".join(out)
    while result.startswith("(") and result.endswith(")") and _balanced(result[1:-1]):
        result = result[1:-1]
    return result


def _normalize_code(code: str) -> str:
    code = "".join(code.split()).upper()
    return code.replace("!=", "<>").replace("==", "=")


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += 1 if ch == "(" else -1 if ch == ")" else 0
        if depth < 0:
            return False
    return depth == 0


# -- dates --------------------------------------------------------------------------------------------------

_RELATIVE = re.compile(r"^\s*(?:in\s+)?(?P<n>\d+|a|an|one|two|three|six)?\s*(?P<unit>day|week|month|year)s?"
                       r"(?:\s+from\s+(?:today|now))?\s*$", re.I)
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "six": 6}


def relative_date(text: Any, base: _dt.date | None = None) -> _dt.date | None:
    """A date from SCUBA's relative wording ("today", "1 week", "2 months", "1 year") or an ISO date."""
    base = base or _dt.date.today()
    value = str(text or "").strip().lower()
    if not value:
        return None
    if value in ("today", "now", "0 days"):
        return base
    if value == "tomorrow":
        return base + _dt.timedelta(days=1)
    try:
        return _dt.date.fromisoformat(value)
    except ValueError:
        pass
    m = _RELATIVE.match(value)
    if m is None:
        return None
    raw = (m.group("n") or "1").lower()
    n = _WORDS.get(raw) or int(raw)
    unit = m.group("unit").lower()
    if unit == "day":
        return base + _dt.timedelta(days=n)
    if unit == "week":
        return base + _dt.timedelta(weeks=n)
    months = n * (12 if unit == "year" else 1)
    year, month = divmod(base.month - 1 + months, 12)
    day = min(base.day, 28 if month + 1 == 2 else 30 if month + 1 in (4, 6, 9, 11) else 31)
    if month + 1 == 2 and base.day == 29 and _leap(base.year + year):
        day = 29
    return _dt.date(base.year + year, month + 1, day)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def close_dates(actual: Any, wanted: Sequence[_dt.date | None], slack_days: int = 1) -> bool:
    """Whether an ISO date string is within ``slack_days`` of any of the wanted dates."""
    try:
        got = _dt.date.fromisoformat(str(actual)[:10])
    except ValueError:
        return False
    return any(w is not None and abs((got - w).days) <= slack_days for w in wanted)


# -- UI steps ----------------------------------------------------------------------------------------------


def fill_form(values: Mapping[str, Any], selects: Iterable[str] = ()) -> list[Action]:
    """Fill a form's fields by label: ``selects`` are picklists (select by option label), the rest text."""
    chosen = set(selects)
    out: list[Action] = []
    for label, value in values.items():
        if value is None:
            continue
        if label in chosen:
            out.append(SelectOption(f"label={label}", str(value)))
        else:
            out.append(Fill(f"label={label}", str(value)))
    return out


def click_button(name: str) -> Action:
    return Click(f'role=button[name="{name}"]')


def click_link(name: str) -> Action:
    return Click(f'role=link[name="{name}"]')


# -- queries inside milestones -------------------------------------------------------------------------------


def checked_rows(sf: Any, soql: str) -> list[dict[str, Any]]:
    """``rows`` for use inside a milestone: an API error (a field the org lacks, a malformed value from the
    ground truth) fails the milestone with the server's message instead of crashing the evaluator."""
    from simple_salesforce.exceptions import SalesforceError

    try:
        return rows(sf, soql)
    except SalesforceError as exc:
        raise AssertionError(f"query failed: {soql!r}: {exc}") from None


def record_url(env: Any, obj: str, record_id: str, action: str = "view") -> str:
    """The UI path of a record page (``/lightning/r/Case/500.../view``)."""
    return f"/lightning/r/{obj}/{record_id}/{action}"


def field_labels(sf: Any, obj: str) -> dict[str, str]:
    """Field API name -> the label forms show (from the object's describe)."""
    return {str(f["name"]): str(f.get("label") or f["name"]) for f in sf.restful(f"sobjects/{obj}/describe")["fields"]}
