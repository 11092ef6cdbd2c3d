"""The UI steps a person takes in the org, as actions for the templates' demonstrations: buttons and links by
name, list and record pages, record forms filled by field API name, and setup: the Quick Find, the Object
Manager, profiles by the names the pages show, picklist values, list-view columns."""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Iterable, Mapping

from pytest_cua.actions import Action, Check, Click, Fill, Press, SelectOption, Uncheck

from ..common import goto, rows
from .lookups import describe, form_label


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


def click_tab(name: str) -> Action:
    """A tab of a tab set (a record page's Related and Details)."""
    return Click(f'role=tab[name="{name}"]')


def path_step(name: str) -> list[Action]:
    """On a record's path: choose the step ``name``, then "Mark as Current Stage" (an option's name carries
    "Stage Complete" / "Current Stage:" before the step's)."""
    return [Click(f'role=option[name*="{name}"]'), click_button("Mark as Current Stage")]


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
    """The label of a field as a record's New and Edit dialogs show it (``lookups.form_label``: Salesforce's
    standard layout label, else describe's label)."""
    f = _field_describe(described, field_name)
    if f is not None and f.get("label"):
        return form_label(described, str(f.get("name") or field_name), str(f["label"]))
    return form_label(described, field_name, re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ",
                                                   field_name[:-2] if field_name.endswith("Id") else field_name))


def label(env: Any, sobject: str, field_name: str) -> str:
    """The label of a field as the org's forms show it."""
    return _label_of(describe(env, sobject), field_name)


def fill_form(env: Any, sobject: str, values: Mapping[str, Any]) -> list[Action]:
    """Fill a record form by field API name (labels and types from the org's describe): picklists selected,
    booleans checked, lookups searched by name and the record chosen, dates typed as the date field reads them
    (``ui_date``: M/D/YYYY), the rest typed; None is skipped."""
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
        elif ftype == "reference":
            actions += choose_record(_label_of(described, name), ui_text(value))
        elif ftype == "date":
            actions.append(Fill(target, ui_date(value)))
        else:
            actions.append(Fill(target, ui_text(value)))
    return actions


def choose_record(label: str, name: str, *, replace: bool = False) -> list[Action]:
    """Choose the record called ``name`` in the lookup labelled ``label``: type the name, then click the
    search's result (names starting with the text come first, the exact name first of all). ``replace``: the
    lookup holds a record already (an edited record's value): its pill is removed first (focused, Delete)."""
    steps: list[Action] = [Click(f'role=button[name*="{label}"]'), Press("Delete")] if replace else []
    return [*steps, Fill(f"label={label}", name), Click(f'role=option[name*="{name}"]')]


def ui_date(value: Any) -> str:
    """A date as a person types it into a Lightning date field in the en-US locale: ``12/5/2026`` (the field
    reads its own format, M/D/YYYY, and not ISO dates); a date or an ISO date string."""
    day = value if isinstance(value, _dt.date) else _dt.date.fromisoformat(str(value)[:10])
    return f"{day.month}/{day.day}/{day.year}"


def ui_text(value: Any) -> str:
    """A value as typed into a form: whole floats without ``.0``, dates as ``YYYY-MM-DD``."""
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


def setup_link(env: Any, name: str) -> list[Action]:
    """Setup home, then the Setup tree's page ``name`` (found with the setup Quick Find)."""
    return [goto(env, "/lightning/setup/SetupOneHome/home"), Fill('role=searchbox[name="Quick Find"]', name),
            Click(setup_page(name))]


def open_create_menu() -> Action:
    """Setup's Create button menu (Setup Home, Object Manager): a lightning-button-menu, named "Create" and its
    assistive "Show menu"."""
    return Click('role=button[name*="Create"]')


def setup_page(name: str) -> str:
    """The Setup tree's link to the page ``name`` once Quick Find found it: the last link of that name, under the
    group of the same name (Users > Users) whose label is a link too (it expands the group)."""
    return f'role=link[name="{name}"] >> nth=-1'


def open_object(env: Any, label: str) -> list[Action]:
    """Setup -> Object Manager -> the object (found with the Object Manager's Quick Find: the page's last, as Object
    Manager shows no Setup tree, whose Quick Find would come first)."""
    return [*setup_link(env, "Object Manager"), Fill('role=searchbox[name="Quick Find"] >> nth=-1', label),
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
