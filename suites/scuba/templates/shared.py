"""The one home of what the SCUBA templates share: the template base class that declares milestones once,
relative dates read as SCUBA's scorers read them, text comparisons, record look-ups that never crash on a
missing record, and the UI steps a person takes in the org's forms.

Public names (other template modules import them; keep them stable): ``ScubaTemplate``; dates ``today``,
``relative_date``, ``DateFormError``, ``QUOTE_DURATIONS``; text ``norm``, ``same_text``, ``html_text``,
``digits``, ``same_number``, ``as_list``, ``names``, ``triples``; look-ups ``checked_rows``, ``tooling_rows``,
``record_id``, ``require_id``, ``user_by_name``, ``role_by_name``, ``role_group_id``, ``group_members``,
``object_api_name``, ``field_labels``, ``describe``, ``standard_price``, ``convert_lead``; sharing
``SHARING_LABELS``, ``sharing_model``, ``sharing_label``; UI ``button``, ``link``, ``click_button``,
``click_link``, ``open_list``, ``open_record``, ``label``, ``fill_form``, ``save``, ``new_from_list``,
``new_related``, ``record_url``; setup UI ``setup_link``, ``open_object``,
``profile_labels``, ``only_checked``, ``picklist_value_steps``, ``page_link``. ``common`` keeps ``soql_str``, ``rows``, ``first``, ``field``, ``split_name``,
``goto``.
"""

from __future__ import annotations

import datetime as _dt
import html
import re
from typing import Any, Iterable, Mapping
from urllib.parse import quote

from dateutil.relativedelta import relativedelta

from pytest_cua.actions import Action, Check, Click, Fill, SelectOption, Uncheck
from pytest_cua.tasks.scoring import declare
from pytest_cua.tasks.suite import EvalContext, Template

from .common import first, goto, rows, soql_str, split_name

# --- the template base: milestones declared once --------------------------------------------------------------


class ScubaTemplate(Template):
    """A SCUBA template whose milestones are declared in one place.

    Fixed weights: set ``milestones = {"name": weight, ...}``. Weights that depend on the ground truth (SCUBA's
    0.5/n per entry, a field only when it is given): override ``weights(truth)``, returning the milestones
    of that task in evaluation order. Implement ``check(ctx)`` with ``milestone(name)`` blocks (no weights:
    they come from the declaration). ``evaluate`` declares, then checks; a subclass cannot override it, so
    every milestone recorded is checked against the declaration (an undeclared name, another weight or a
    declared milestone never recorded is an evaluator error naming the template and the milestone).
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "evaluate" in cls.__dict__:
            raise TypeError(f"{cls.__name__}: implement check(ctx), not evaluate(): ScubaTemplate.evaluate "
                            "declares the milestones before checking them")

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        """The milestones of a task with this ground truth, name -> weight (summing to 1), in order."""
        if self.milestones is None:
            raise NotImplementedError(f"template {self.name!r} declares no milestones (set milestones or "
                                      "override weights)")
        return dict(self.milestones)

    def evaluate(self, ctx: EvalContext) -> None:
        declare(self.weights(ctx.truth))
        self.check(ctx)

    def check(self, ctx: EvalContext) -> None:
        raise NotImplementedError(f"template {self.name!r} has no check()")


def share(total: float, names: Iterable[str]) -> dict[str, float]:
    """``total`` split evenly over ``names`` (SCUBA's ``0.75 / n`` per member)."""
    listed = list(names)
    return {n: total / len(listed) for n in listed} if listed else {}


# --- dates ----------------------------------------------------------------------------------------------------


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


# --- text -----------------------------------------------------------------------------------------------------


def norm(value: Any) -> str:
    """Trimmed, inner white space collapsed, case folded."""
    return " ".join(str(value if value is not None else "").split()).casefold()


def same_text(a: Any, b: Any) -> bool:
    """Equal after trimming and collapsing white space, ignoring case."""
    return norm(a) == norm(b)


def html_text(value: Any) -> str:
    """The text of a rich-text value as SCUBA compares it: tags dropped, trimmed, entities decoded."""
    return html.unescape(re.sub(r"<[^>]*>", "", str(value if value is not None else "")).strip())


def digits(text: Any) -> str:
    """Only the digits (of a phone number)."""
    return re.sub(r"\D", "", str(text or ""))


def same_number(a: Any, b: Any, tol: float = 1e-9) -> bool:
    """Numbers equal (``"10,000"`` and ``10000.0`` are the same); False when either is not a number."""
    try:
        x = float(str(a).replace(",", "").replace("$", "")) if a is not None else None
        y = float(str(b).replace(",", "").replace("$", "")) if b is not None else None
    except ValueError:
        return False
    return x is not None and y is not None and abs(x - y) <= tol


def as_list(value: Any) -> list[str]:
    """A ground-truth value that may be one string or a list of them, as a list of strings."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def triples(value: Any, name: str, what: str = "field, operation, value", *,
            empty: bool = False) -> list[tuple[Any, Any, Any]]:
    """A ground truth's ``[[a, b, c], ...]`` (SCUBA's filters and criteria) as tuples of the values as given; a
    value of another shape (or an empty list, unless ``empty``) is a ``ValueError`` naming ``name``."""
    if not isinstance(value, list) or not (value or empty) or not all(
            isinstance(t, (list, tuple)) and len(t) == 3 for t in value):
        raise ValueError(f"{name} must be a {'' if empty else 'non-empty '}list of [{what}], got {value!r}")
    return [(t[0], t[1], t[2]) for t in value]


def names(value: Any) -> list[str]:
    """A list of names from a list or from ``"A, B and C"``."""
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if str(v).strip()]
    parts = re.split(r",|\band\b|;", str(value or ""))
    return [p.strip() for p in parts if p.strip()]


# --- look-ups -------------------------------------------------------------------------------------------------


def checked_rows(sf: Any, soql: str) -> list[dict[str, Any]]:
    """``rows`` for use inside a milestone: an API error (a field the org lacks, a malformed value from the
    ground truth) fails the milestone with the server's message instead of crashing the evaluator."""
    from simple_salesforce.exceptions import SalesforceError

    try:
        return rows(sf, soql)
    except SalesforceError as exc:
        raise AssertionError(f"query failed: {soql!r}: {exc}") from None


def tooling_rows(sf: Any, soql: str) -> list[dict[str, Any]]:
    """The records of a Tooling API query (one page is plenty for metadata-sized answers)."""
    result = sf.toolingexecute("query?q=" + quote(soql, safe=",*()='"))
    return list(result.get("records") or [])


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


def user_by_name(sf: Any, full_name: str, fields: str = "Id, Name, IsActive") -> dict[str, Any] | None:
    """A user by full name ("First Last"), found as SCUBA's scorers find one (first and last name)."""
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


def object_api_name(sf: Any, name: str) -> str | None:
    """An object's API name from its API name or its label (singular or plural): "Change Request" ->
    "ChangeRequest"; None when no object matches."""
    wanted = norm(name)
    for entry in sf.describe().get("sobjects", []):
        if wanted in (norm(entry.get("name")), norm(entry.get("label")), norm(entry.get("labelPlural"))):
            return str(entry["name"])
    return None


def describe(env: Any, sobject: str) -> dict[str, Any] | None:
    """The object's describe (``GET .../sobjects/<sobject>/describe`` through ``env.org``), or None when the
    org does not know the object. Asked afresh each time: a task may change labels and fields."""
    sf = getattr(env, "org", None)
    if sf is None:
        return None
    try:
        found = getattr(sf, sobject).describe()
    except Exception:  # noqa: BLE001 - simple-salesforce raises its own error classes for a missing object
        return None
    return found if isinstance(found, dict) else None


def field_labels(sf: Any, obj: str) -> dict[str, str]:
    """Field API name -> the label forms show (from the object's describe)."""
    return {str(f["name"]): str(f.get("label") or f["name"]) for f in sf.restful(f"sobjects/{obj}/describe")["fields"]}


def standard_price(sf: Any, product_name: str) -> float | None:
    """The product's list price in the standard price book."""
    rec = first(sf, "SELECT UnitPrice FROM PricebookEntry WHERE Pricebook2.IsStandard = true AND Product2.Name = "
                    f"{soql_str(product_name)} LIMIT 1") or \
        first(sf, "SELECT UnitPrice FROM PricebookEntry WHERE Pricebook2.Name = 'Standard Price Book' AND "
                  f"Product2.Name = {soql_str(product_name)} LIMIT 1")
    return float(rec["UnitPrice"]) if rec and rec.get("UnitPrice") is not None else None


def convert_lead(sf: Any, lead_id: str, *, account_id: str | None = None, opportunity_name: str | None = None,
                 converted_status: str = "Closed - Converted") -> dict[str, Any]:
    """Convert a lead with the SOAP partner API's ``convertLead`` (Salesforce's REST API has none), through the
    simple-salesforce client's session and token; returns the call's result (accountId, contactId,
    opportunityId). An unsuccessful conversion raises ``RuntimeError`` with the org's message."""
    from pytest_cua.orgs.localorg.soap import convert_lead_request, parse_convert_response

    instance = sf.base_url.split("/services/", 1)[0]
    body = convert_lead_request(sf.session_id, [{"leadId": lead_id, "accountId": account_id,
                                                 "opportunityName": opportunity_name,
                                                 "convertedStatus": converted_status}])
    response = sf.session.post(f"{instance}/services/Soap/u/{sf.sf_version}", data=body.encode("utf-8"),
                               headers={"Content-Type": "text/xml; charset=UTF-8", "SOAPAction": '""'}, timeout=60)
    results = parse_convert_response(response.text)
    if not results or not results[0].get("success"):
        errors = results[0].get("errors") if results else None
        raise RuntimeError(f"convertLead of {lead_id} failed (HTTP {response.status_code}): {errors}")
    return results[0]


# --- organization-wide defaults -------------------------------------------------------------------------------

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
    for label_text, model in SHARING_LABELS.items():
        if norm(text) in (norm(label_text), norm(model)):
            return model
    return text


def sharing_label(model: str) -> str:
    """The Setup label of a sharing model: "Read" -> "Public Read Only"."""
    for label_text, value in SHARING_LABELS.items():
        if value == model:
            return label_text
    return model


# --- UI steps -------------------------------------------------------------------------------------------------


def button(name: str) -> str:
    """A button by its accessible name."""
    return f'role=button[name="{name}"]'


def link(name: str) -> str:
    """A link by its accessible name."""
    return f'role=link[name="{name}"]'


def click_button(name: str) -> Action:
    return Click(button(name))


def click_link(name: str) -> Action:
    return Click(link(name))


def open_list(env: Any, sobject: str) -> list[Action]:
    """Open an object's list page."""
    return [goto(env, f"/lightning/o/{sobject}/list")]


def open_record(env: Any, sobject: str, rid: str) -> list[Action]:
    """Open a record page."""
    return [goto(env, record_url(sobject, rid))]


def record_url(obj: str, record_id: str, action: str = "view") -> str:
    """The UI path of a record page (``/lightning/r/Case/500.../view``)."""
    return f"/lightning/r/{obj}/{record_id}/{action}"


def _field_describe(described: Mapping[str, Any] | None, field_name: str) -> Mapping[str, Any] | None:
    for f in (described or {}).get("fields") or []:
        if str(f.get("name", "")).lower() == field_name.lower():
            return f  # type: ignore[no-any-return]
    return None


def _label_of(described: Mapping[str, Any] | None, field_name: str) -> str:
    f = _field_describe(described, field_name)
    if f is not None and f.get("label"):
        return str(f["label"])
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", field_name[:-2] if field_name.endswith("Id") else field_name)


def label(env: Any, sobject: str, field_name: str) -> str:
    """The label of a field as the org's forms show it."""
    return _label_of(describe(env, sobject), field_name)


def fill_form(env: Any, sobject: str, values: Mapping[str, Any]) -> list[Action]:
    """Fill a record form by field API name (labels and types from the org's describe): picklists selected,
    booleans checked, the rest (text, lookups by name, dates as ``YYYY-MM-DD``) typed; None is skipped."""
    actions: list[Action] = []
    described = describe(env, sobject)
    for name, value in values.items():
        if value is None:
            continue
        target = f"label={_label_of(described, name)}"
        f = _field_describe(described, name)
        ftype = f.get("type") if f is not None else None
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
    if isinstance(value, _dt.date):
        return value.isoformat()
    return str(value)


def save() -> list[Action]:
    """Save the form."""
    return [click_button("Save")]


def new_from_list(env: Any, sobject: str, values: Mapping[str, Any]) -> list[Action]:
    """List page -> New -> fill -> Save."""
    return [*open_list(env, sobject), click_button("New"), *fill_form(env, sobject, values), *save()]


def new_related(env: Any, child: str, values: Mapping[str, Any], *, button_name: str | None = None) -> list[Action]:
    """On a parent's record page: the related list's New button -> fill -> Save."""
    name = button_name or f"New {_child_label(env, child)}"
    return [click_button(name), *fill_form(env, child, values), *save()]


def _child_label(env: Any, sobject: str) -> str:
    described = describe(env, sobject)
    return str(described.get("label") or sobject) if described else sobject


# --- UI steps of setup: the Object Manager, profiles by the names the pages show ------------------------------


def setup_link(env: Any, name: str) -> list[Action]:
    """Setup home, then the setup navigation's link ``name`` (found with the setup Quick Find)."""
    return [goto(env, "/lightning/setup/SetupOneHome/home"), Fill('role=searchbox[name="Quick Find"]', name),
            Click(link(name))]


def open_object(env: Any, label: str) -> list[Action]:
    """Setup -> Object Manager -> the object (found with the Object Manager's Quick Find)."""
    return [*setup_link(env, "Object Manager"), Fill('role=searchbox[name="Quick Find"] >> nth=1', label),
            Click(link(label))]


def profile_labels(sf: Any) -> dict[str, str]:
    """The org's profiles: the name SCUBA's ground truth gives (the profile's fullName decoded, ``Admin``) -> the
    name the setup pages show (``System Administrator``)."""
    from urllib.parse import unquote

    from pytest_cua.orgs.localorg.metadata.components import profile_full_name

    return {unquote(profile_full_name(r["Name"])).strip(): r["Name"]
            for r in rows(sf, "SELECT Name FROM Profile ORDER BY Name")}


def only_checked(everyone: Iterable[str], wanted: Iterable[str], label: str, header: str) -> list[Action]:
    """Leave exactly ``wanted`` of a checkbox column checked (all start checked): uncheck the others when fewer
    steps, else clear the column with its ``header`` checkbox and check the wanted ones. Each checkbox is
    ``label.format(name)``."""
    everyone, wanted = list(everyone), list(dict.fromkeys(wanted))
    others = [n for n in everyone if n not in wanted]
    if len(others) <= len(wanted):
        return [Uncheck(f"label={label.format(n)}") for n in others]
    return [Uncheck(f"label={header}"), *(Check(f"label={label.format(n)}") for n in wanted)]


def picklist_value_steps(env: Any, sobject: str, field_name: str, value: str) -> list[Action]:
    """Nothing when ``value`` is a value of the picklist ``sobject.field_name``; else the steps a person who may
    change setup takes first to add it: Object Manager > the object > Fields & Relationships > the field > New."""
    described = describe(env, sobject) or {}
    fields = {f["name"]: f for f in described.get("fields", [])}
    picklist = fields.get(field_name) or {}
    if value in [v.get("value") for v in picklist.get("picklistValues", [])]:
        return []
    return [*open_object(env, str(described.get("label") or sobject)), click_link("Fields & Relationships"),
            click_link(str(picklist.get("label") or field_name)), click_button("New"), Fill("label=Values", value),
            click_button("Save")]


def page_link(sobject: str, name: str) -> Action:
    """A link named like an object's tab (``Accounts``) in a page's content: the global navigation's own link of
    that name comes first on every page, so the page's is the second one."""
    from pytest_cua.orgs.localorg.ui.web import NAV_OBJECTS

    return Click(f"{link(name)} >> nth=1") if sobject in NAV_OBJECTS else Click(link(name))


def column_field(env: Any, sobject: str, column: str) -> tuple[str, str]:
    """(API name, label) of the field a Metadata API list-view column names (``ACCOUNT.NAME`` on Opportunity is
    its AccountId, labelled "Account"), read with the embedded org's column rules over the object's describe."""
    from types import SimpleNamespace

    from pytest_cua.orgs.localorg.metadata.columns import field_name

    described = describe(env, sobject) or {}
    fields = {f["name"]: SimpleNamespace(name=f["name"], type=f.get("type"), label=f.get("label"))
              for f in described.get("fields", [])}
    by_lower = {k.lower(): v for k, v in fields.items()}
    shim = SimpleNamespace(name=sobject, fields=fields, field=lambda n: by_lower.get(str(n).lower()))
    api = field_name(shim, column)  # type: ignore[arg-type]
    if api is None:
        raise LookupError(f"{sobject} has no field behind the list view column {column!r}")
    return api, str(fields[api].label)
