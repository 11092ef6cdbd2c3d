"""Admin persona, list views: a list view with two filters, visible to all users.

SCUBA's ``create_list_view``, scored as SCUBA scores it (milestone_evaluator_admin.py): ground truth
``object_name``, ``list_name``, ``key1`` / ``key2`` (list-view column names such as ``OPPORTUNITY.STAGE_NAME``),
``operator1`` / ``operator2`` (metadata operations: ``equals``, ``greaterOrEqual``, ...) and ``value1`` /
``value2``. The list view is the first one of the name: on the object (0.25), shared with all users (0.25:
SCUBA reads the view's metadata, which a private view does not have), and each filter (0.25) exactly among the
filters of that metadata (column names, as the Metadata API gives them: ``OPPORTUNITY.STAGE_NAME``).

Deliberate deviations (DEVIATIONS.md): a key given as a field label (``Due Date``) or in another case
(``Status``), an operator given as its UI label (``less than``) and the value ``today`` are read as what they
mean; SCUBA compares them raw, which no saved list view can match (admin_008_003).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Click, Done, Fill, SelectOption

from . import metadata_io as md
from . import shared as s
from .common import goto, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task

# metadata operation -> UI label (the org's list-view form shows the labels, stores the operations)
OPERATOR_LABELS = {"equals": "equals", "notEqual": "not equal to", "lessThan": "less than",
                   "greaterThan": "greater than", "lessOrEqual": "less or equal", "greaterOrEqual": "greater or equal",
                   "contains": "contains", "notContain": "does not contain", "startsWith": "starts with",
                   "includes": "includes", "excludes": "excludes"}

# list-view column names (after the object prefix) whose field is named otherwise
COLUMN_FIELDS = {"ADDRESS1_STATE_CODE": "BillingState", "ADDRESS1_STATE": "BillingState",
                 "ADDRESS1_CITY": "BillingCity", "ADDRESS1_COUNTRY_CODE": "BillingCountry",
                 "ADDRESS1_COUNTRY": "BillingCountry", "ADDRESS1_ZIP": "BillingPostalCode",
                 "EMPLOYEES": "NumberOfEmployees", "DUE_DATE": "ActivityDate", "CORE.USERS.ALIAS": "OwnerId",
                 "OWNER": "OwnerId", "ACCOUNT_NAME": "AccountId", "CLOSE_DATE": "CloseDate"}
# field labels SCUBA's ground truths use that the org's describe names otherwise
LABEL_FIELDS = {"due date": "ActivityDate"}


def operation(op: Any) -> str:
    """A metadata operation from itself or its UI label (``less than`` -> ``lessThan``)."""
    text = str(op or "").strip()
    if text in OPERATOR_LABELS:
        return text
    for name, shown in OPERATOR_LABELS.items():
        if s.norm(shown) == s.norm(text) or s.norm(name) == s.norm(text):
            return name
    return text


def field_name(sf: Any, obj: str, key: Any) -> str:
    """The field API name behind a SCUBA column key: ``OPPORTUNITY.STAGE_NAME`` -> ``StageName``, ``TITLE`` ->
    ``Title``, ``ACCOUNT.ADDRESS1_STATE_CODE`` -> ``BillingState``, ``Due Date`` -> ``ActivityDate``; the key
    itself when no field matches."""
    text = str(key or "").strip()
    if s.norm(text) in LABEL_FIELDS:
        return LABEL_FIELDS[s.norm(text)]
    column = text.rsplit(".", 1)[-1]
    for candidate in (text.upper(), column.upper()):
        if candidate in COLUMN_FIELDS:
            return COLUMN_FIELDS[candidate]
    squashed = column.replace("_", "").lower()
    fields = sf.restful(f"sobjects/{obj}/describe").get("fields", [])
    for f in fields:
        if str(f.get("name", "")).lower() == squashed:
            return str(f["name"])
    for f in fields:
        if s.norm(f.get("label")) == s.norm(text):
            return str(f["name"])
    return text


def filter_value(value: Any) -> str:
    """A filter value as the org stores it; ``today`` stays the date literal ``TODAY``."""
    text = str(value if value is not None else "")
    return "TODAY" if s.norm(text) == "today" else text


def field_label(sf: Any, obj: str, key: Any) -> str:
    name = field_name(sf, obj, key)
    for f in sf.restful(f"sobjects/{obj}/describe").get("fields", []):
        if f.get("name") == name:
            return str(f.get("label") or name)
    return name


class CreateListView(s.ScubaTemplate):
    """A list view on an object with two filters, shared with all users."""

    name = "create_list_view"
    ground_truth_keys = ("key1", "key2", "list_name", "object_name", "operator1", "operator2", "value1", "value2")
    objects = ("ListView",)
    milestones = {"list view on the object": 0.25, "shared with all users": 0.25, "filter 1": 0.25, "filter 2": 0.25}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        obj_name = str(truth.get("object_name", ""))
        obj = s.object_api_name(sf, obj_name) or obj_name
        list_name = str(truth.get("list_name", ""))
        found = s.checked_rows(sf, "SELECT Id, DeveloperName, Name, SobjectType FROM ListView "
                                   f"WHERE Name = {soql_str(list_name)}")
        view = found[0] if found else None
        # as SCUBA: the view's metadata by the ground truth's object and the first view's developer name; a view
        # only its owner sees has none (the Metadata API retrieves the views others can see)
        body = md.read_one(sf, "ListView", f"{obj}.{view['DeveloperName']}") if view else None
        with milestone("list view on the object"):
            assert view is not None, f"no list view named {list_name!r}"
            assert view.get("SobjectType") == obj, \
                f"list view {list_name!r} is on {view.get('SobjectType')!r}, not {obj_name!r}"
        with milestone("shared with all users"):
            assert view is not None, f"no list view named {list_name!r}"
            assert body is not None, f"list view {list_name!r} has no metadata {obj}.{view['DeveloperName']}: " \
                                     "it is not shared with all users"
        today = s.today().isoformat()
        have = [(md.text(f, "field") or "", md.text(f, "operation") or "", md.text(f, "value") or "")
                for f in md.items(body, "filters")]
        meant: list[tuple[str, str, str]] | None = None  # the filters' fields (describe calls), when needed
        for n in (1, 2):
            with milestone(f"filter {n}"):
                assert body is not None, "the list view is not shared with all users, so SCUBA reads no filters"
                key, op, value = (truth.get(f"key{n}"), truth.get(f"operator{n}"), truth.get(f"value{n}"))
                # SCUBA's exact tuple, or (DEVIATIONS.md) the same field, operation and value read as meant
                ok = (str(key), str(op), str(value)) in have and not (s.exact() and value == "today")
                if not ok and not s.exact():  # SCUBA: the raw tuple, `today` a date object no text equals
                    if meant is None:
                        meant = [(field_name(sf, obj, f), o, v) for f, o, v in have]
                    want = (field_name(sf, obj, key), operation(op), filter_value(value))
                    ok = any((f, o) == want[:2] and
                             (v == want[2] or want[2] == "TODAY" and (v.upper() == "TODAY" or v == today))
                             for f, o, v in meant)
                assert ok, f"no filter {key} {op} {value!r} among {have}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj = s.object_api_name(sf, str(truth["object_name"])) or str(truth["object_name"])
        name = str(truth["list_name"])
        filters = [{"field": field_name(sf, obj, truth[f"key{n}"]), "operator": operation(truth[f"operator{n}"]),
                    "value": filter_value(truth[f"value{n}"])} for n in (1, 2)]
        sf.ListView.create({"Name": name, "DeveloperName": "_".join("".join(c for c in w if c.isalnum())
                                                                   for w in name.split())[:80],
                            "SobjectType": obj, "Filters": json.dumps(filters), "Visibility": "Public",
                            "FilterScope": "Everything"})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj = s.object_api_name(sf, str(truth["object_name"])) or str(truth["object_name"])
        name = str(truth["list_name"])
        steps: list[Action] = [goto(env, f"/lightning/o/{obj}/list"), s.click_button("List View Controls"),
                               Click('role=menuitem[name="New"]'), Fill("label=List Name", name)]
        for n in (1, 2):
            op = operation(truth[f"operator{n}"])
            steps += [s.click_button("Add Filter")] if n > 1 else []
            steps += [SelectOption(f"label=Filter {n} Field", field_label(sf, obj, truth[f"key{n}"])),
                      SelectOption(f"label=Filter {n} Operator", OPERATOR_LABELS.get(op, op)),
                      Fill(f"label=Filter {n} Value", filter_value(truth[f"value{n}"]))]
        steps += [Click("label=All users can see this list view"), s.click_button("Save"), Done()]
        return steps


TEMPLATES = [CreateListView()]
