"""Admin persona, list views: a list view with two filters, visible to all users.

SCUBA's ``create_list_view``: ground truth ``object_name``, ``list_name``, ``key1`` / ``key2`` (metadata column
names such as ``OPPORTUNITY.STAGE_NAME``, or field API names), ``operator1`` / ``operator2`` (``equals``,
``greaterOrEqual``, ...) and ``value1`` / ``value2``. The embedded org keeps a list view's filters as JSON
(``[{"field", "operator", "value"}]``); keys, operators and values are compared after normalisation.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.actions import Action, Click, Done, Fill, SelectOption
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from ._service_admin import checked_rows, click_button, norm, object_api_name, same_text
from .common import goto, soql_str

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task

# operator spellings (metadata names and UI labels) -> one key
_OPERATORS = {
    "equals": "eq", "equal": "eq", "equalto": "eq", "=": "eq", "eq": "eq",
    "notequal": "ne", "notequalto": "ne", "!=": "ne", "<>": "ne", "ne": "ne",
    "lessthan": "lt", "<": "lt", "lt": "lt",
    "greaterthan": "gt", ">": "gt", "gt": "gt",
    "lessorequal": "le", "lessthanorequal": "le", "lessthanorequalto": "le", "<=": "le", "le": "le",
    "greaterorequal": "ge", "greaterthanorequal": "ge", "greaterthanorequalto": "ge", ">=": "ge", "ge": "ge",
    "contains": "contains", "notcontain": "notcontains", "doesnotcontain": "notcontains",
    "notcontains": "notcontains", "startswith": "startswith", "includes": "includes", "excludes": "excludes",
}
# UI labels of the operators, for the demonstration
OPERATOR_LABELS = {"eq": "equals", "ne": "not equal to", "lt": "less than", "gt": "greater than",
                   "le": "less or equal", "ge": "greater or equal", "contains": "contains",
                   "notcontains": "does not contain", "startswith": "starts with", "includes": "includes",
                   "excludes": "excludes"}


def operator_key(op: Any) -> str:
    text = "".join(str(op or "").split()).replace("_", "").lower()
    return _OPERATORS.get(text, text)


# metadata column names whose field is named otherwise
_COLUMN_ALIASES = {"employees": "numberofemployees", "address1city": "billingcity",
                   "address1country": "billingcountry", "address1state": "billingstate", "owner": "ownerid",
                   "accountname": "accountid", "casenumber": "casenumber"}


def field_key(key: Any) -> str:
    """``OPPORTUNITY.STAGE_NAME`` / ``StageName`` / ``Opportunity.StageName`` -> ``stagename``."""
    text = str(key or "").strip()
    if "." in text:
        text = text.rsplit(".", 1)[1]
    text = text.replace("_", "").lower()
    return _COLUMN_ALIASES.get(text, text)


def value_key(value: Any) -> str:
    text = norm(value)
    try:
        number = float(text.replace(",", ""))
    except ValueError:
        return text
    return repr(number)


def _filters(view: dict[str, Any]) -> list[dict[str, Any]]:
    raw = view.get("Filters")
    try:
        data = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return []
    return [f for f in data if isinstance(f, dict)] if isinstance(data, list) else []


def field_name(sf: Any, obj: str, key: Any) -> str:
    """The field API name behind a SCUBA column key (``OPPORTUNITY.STAGE_NAME`` -> ``StageName``)."""
    want = field_key(key)
    for f in sf.restful(f"sobjects/{obj}/describe").get("fields", []):
        if f.get("name", "").lower() == want or field_key(f.get("name")) == want:
            return str(f["name"])
    return str(key)


def field_label(sf: Any, obj: str, key: Any) -> str:
    name = field_name(sf, obj, key)
    for f in sf.restful(f"sobjects/{obj}/describe").get("fields", []):
        if f.get("name") == name:
            return str(f.get("label") or name)
    return name


class CreateListView(Template):
    """A list view on an object with two filters, shared with all users."""

    name = "create_list_view"
    objects = ("ListView",)
    milestones = {"list view exists": 0.3, "first filter": 0.25, "second filter": 0.25, "visible to all users": 0.2}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        obj_name = str(truth.get("object_name", ""))
        obj = object_api_name(sf, obj_name) or obj_name
        list_name = str(truth.get("list_name", ""))
        view: dict[str, Any] | None = None
        with milestone("list view exists", 0.3):
            found = [v for v in checked_rows(sf, f"SELECT Id, Name, DeveloperName, SobjectType, Filters, Visibility "
                                                 f"FROM ListView WHERE SobjectType = {soql_str(obj)}")
                     if same_text(v.get("Name"), list_name)]
            assert found, f"no list view {list_name!r} on {obj_name!r}"
            view = found[-1]
        filters = _filters(view) if view else []
        for n, label in ((1, "first filter"), (2, "second filter")):
            with milestone(label, 0.25):
                assert view is not None, f"no list view {list_name!r}"
                want = (field_key(truth.get(f"key{n}")), operator_key(truth.get(f"operator{n}")),
                        value_key(truth.get(f"value{n}")))
                have = [(field_key(f.get("field")), operator_key(f.get("operator")), value_key(f.get("value")))
                        for f in filters]
                assert want in have, (f"no filter {truth.get(f'key{n}')} {truth.get(f'operator{n}')} "
                                      f"{truth.get(f'value{n}')!r} (filters: {filters})")
        with milestone("visible to all users", 0.2):
            assert view is not None, f"no list view {list_name!r}"
            assert view.get("Visibility") == "Public", f"visibility is {view.get('Visibility')!r}, not all users"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj = object_api_name(sf, str(truth["object_name"])) or str(truth["object_name"])
        name = str(truth["list_name"])
        filters = [{"field": field_name(sf, obj, truth[f"key{n}"]), "operator": str(truth[f"operator{n}"]),
                    "value": str(truth[f"value{n}"])} for n in (1, 2)]
        sf.ListView.create({"Name": name, "DeveloperName": "_".join("".join(c for c in w if c.isalnum())
                                                                   for w in name.split())[:80],
                            "SobjectType": obj, "Filters": json.dumps(filters), "Visibility": "Public",
                            "FilterScope": "Everything"})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj = object_api_name(sf, str(truth["object_name"])) or str(truth["object_name"])
        name = str(truth["list_name"])
        steps: list[Action] = [goto(env, f"/lightning/o/{obj}/list"), click_button("New List View"),
                               Fill("label=List Name", name)]
        for n in (1, 2):
            steps += [SelectOption(f"label=Filter {n} Field", field_label(sf, obj, truth[f"key{n}"])),
                      SelectOption(f"label=Filter {n} Operator", OPERATOR_LABELS.get(
                          operator_key(truth[f"operator{n}"]), str(truth[f"operator{n}"]))),
                      Fill(f"label=Filter {n} Value", str(truth[f"value{n}"]))]
        steps += [Click("label=All users can see this list view"), click_button("Save"), Done()]
        return steps


TEMPLATES = [CreateListView()]
