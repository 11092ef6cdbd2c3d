"""Sales persona: a sales process and a territory model (SCUBA's ``create_sales_process`` and
``create_territory_model``).

``create_sales_process`` (``sales_process_name``, ``comma_separated_stages_list``): SCUBA retrieves the
Opportunity object and reads its business process of that name. The process exists (0.2); every listed stage
is in it (0.4); and nothing else is (0.4, only when every stage is there). Stage names are compared as the
metadata writes them (``Negotiation%2FReview``: a slash is encoded), the way the ground truth lists them.

``create_territory_model`` (``territory_model_name``, ``rule_name``, ``filters``: [field, operation, value]):
Enterprise Territory Management is on in the ``Territory2`` settings (0.1); a territory model of that name
exists (0.2); an assignment rule labelled ``rule_name`` belongs to it (0.1); each filter is one of the rule's
items (0.6 split equally). SCUBA reads the first model and the first rule of the name, and the items through
a CSV export, so a number in the ground truth matches the item's value written as that number.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from urllib.parse import unquote

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Check, Done, Fill, SelectOption

from . import metadata_io as md
from . import shared as s
from .common import first, rows, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def _stages(truth: Mapping[str, Any]) -> list[str]:
    return str(truth.get("comma_separated_stages_list", "")).split(", ")  # SCUBA's split


class CreateSalesProcess(s.ScubaTemplate):
    """An Opportunity business process with exactly the listed stages."""

    name = "create_sales_process"
    ground_truth_keys = ("comma_separated_stages_list", "sales_process_name")
    objects = ()
    milestones = {"sales process exists": 0.2, "every stage in it": 0.4, "no other stage": 0.4}

    def check(self, ctx: EvalContext) -> None:
        truth = ctx.truth
        name = str(truth.get("sales_process_name", ""))
        process = md.read_exact(ctx.env.org, "BusinessProcess", f"Opportunity.{name}")  # as SCUBA opens it
        found = {md.text(v, "fullName") for v in md.items(process, "values")}
        expected = set(_stages(truth))
        missing, extra = sorted(expected - found), sorted(found - expected)  # type: ignore[type-var]
        with milestone("sales process exists"):
            assert process is not None, f"no Opportunity sales process named {name!r}"
        with milestone("every stage in it"):
            assert not missing, f"the sales process {name!r} lacks the stages {missing}"
        with milestone("no other stage"):
            assert not missing, f"the sales process {name!r} lacks the stages {missing}"
            assert not extra, f"the sales process {name!r} has other stages too: {extra}"

    def solve(self, task: "Task", env: "Environment") -> None:
        truth = task.ground_truth
        stages = _stages(truth)
        md.upsert(env.org, "BusinessProcess", f"Opportunity.{truth['sales_process_name']}", {  # type: ignore[attr-defined]
            "isActive": True, "values": [{"fullName": s, "default": i == 0} for i, s in enumerate(stages)]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """Setup > Sales Processes > New: the name, Save; then every stage that is not listed removed from
        "Selected Values", Save."""
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        wanted = {unquote(x) for x in _stages(truth)}  # the ground truth names them as their fullNames
        described = {f["name"]: f for f in sf.restful("sobjects/Opportunity/describe")["fields"]}
        stages = [v["value"] for v in described["StageName"].get("picklistValues", [])]
        steps: list[Action] = [*s.setup_link(env, "Sales Processes"), s.click_button("New"),
                               Fill("label=Sales Process Name", str(truth["sales_process_name"])), s.click_button("Save")]
        for stage in stages:
            if stage not in wanted:
                steps += [SelectOption("label=Selected Values", stage), s.click_button("Remove")]
        return [*steps, s.click_button("Save"), Done()]


def _filters(truth: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    return [(str(f), str(o), v) for f, o, v in s.triples(truth.get("filters"), "ground truth 'filters'")]


def _same_value(stored: Any, expected: Any) -> bool:
    """An item's value against the ground truth's, as SCUBA's CSV read compares them: a number in the ground
    truth equals the stored text read as a number."""
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        try:
            return float(str(stored)) == float(expected)
        except ValueError:
            return False
    return str(stored) == str(expected)


def _developer_name(label: str) -> str:
    name = re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_") or "X"
    return name if name[0].isalpha() else f"X{name}"


class CreateTerritoryModel(s.ScubaTemplate):
    """Territory management on, a territory model, its assignment rule and the rule's filters."""

    name = "create_territory_model"
    ground_truth_keys = ("filters", "rule_name", "territory_model_name")
    objects = ("Territory2Model", "ObjectTerritory2AssignmentRule", "ObjectTerritory2AssignmentRuleItem")
    milestones = {"territory management enabled": 0.1, "territory model exists": 0.2,
                  "assignment rule exists": 0.1, "filters": 0.6}  # filters: split equally (see weights())

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        out = {k: v for k, v in self.milestones.items() if k != "filters"}
        filters = _filters(truth)
        for f in filters:
            out[f"filter {list(f)}"] = self.milestones["filters"] / len(filters)
        return out

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        settings = md.read_one(sf, "Territory2Settings", "Territory2")
        with milestone("territory management enabled"):
            assert settings is not None, "the org has no Territory2 settings"
            flag = md.text(settings, "enableTerritoryManagement2")
            assert flag == "true", f"enableTerritoryManagement2 is {flag!r}"
        model_name, rule_name = str(truth.get("territory_model_name", "")), str(truth.get("rule_name", ""))
        model = first(sf, f"SELECT Id FROM Territory2Model WHERE Name = {soql_str(model_name)} "
                          "ORDER BY CreatedDate, Id")
        with milestone("territory model exists"):
            assert model is not None, f"no territory model named {model_name!r}"
        rule = first(sf, "SELECT Id, DeveloperName FROM ObjectTerritory2AssignmentRule WHERE MasterLabel = "
                         f"{soql_str(rule_name)} AND Territory2ModelId = {soql_str(model['Id'])} "
                         "ORDER BY CreatedDate, Id") if model else None
        with milestone("assignment rule exists"):
            assert rule is not None, f"no assignment rule labelled {rule_name!r} in the model {model_name!r}"
        items = rows(sf, "SELECT Field, Operation, Value FROM ObjectTerritory2AssignmentRuleItem WHERE RuleId = "
                         f"{soql_str(rule['Id'])}") if rule else []
        found = [(i.get("Field"), i.get("Operation"), i.get("Value")) for i in items]
        for fld, op, value in _filters(truth):
            with milestone(f"filter {[fld, op, value]}"):
                assert rule is not None, f"no assignment rule labelled {rule_name!r} in the model {model_name!r}"
                assert any(f == fld and o == op and _same_value(v, value) for f, o, v in found), \
                    f"the rule's filters are {found}, not {(fld, op, value)}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        md.upsert(sf, "Territory2Settings", "Territory2", {"enableTerritoryManagement2": True})
        model = str(truth["territory_model_name"])
        mid = sf.Territory2Model.create({"Name": model, "DeveloperName": _developer_name(model)})["id"]
        label = str(truth["rule_name"])
        rid = sf.ObjectTerritory2AssignmentRule.create({
            "MasterLabel": label, "DeveloperName": _developer_name(label), "Territory2ModelId": mid,
            "ObjectType": "Account", "IsActive": True})["id"]
        for order, (fld, op, value) in enumerate(_filters(truth), start=1):
            sf.ObjectTerritory2AssignmentRuleItem.create({"RuleId": rid, "Field": fld, "Operation": op,
                                                          "Value": str(value), "SortOrder": order})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """Setup > Territory Settings > Enable Territory Management (when off); Territory Models > New Territory
        Model (the label), Save; New Rule: the name, Set as Active, each criterion, Save."""
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        settings = md.read_one(sf, "Territory2Settings", "Territory2")
        actions: list[Action] = []
        if md.text(settings, "enableTerritoryManagement2") != "true":
            actions += [*s.setup_link(env, "Territory Settings"), s.click_button("Enable Territory Management")]
        actions += [*s.setup_link(env, "Territory Models"), s.click_button("New Territory Model"),
                    Fill("label=Label", str(truth["territory_model_name"])), s.click_button("Save"),
                    s.click_button("New Rule"), Fill("label=Rule Name", str(truth["rule_name"])),
                    Check("label=Set as Active")]
        for i, (fld, op, value) in enumerate(_filters(truth), 1):
            actions += [SelectOption(f"label=Field {i}", fld), SelectOption(f"label=Operator {i}", op),
                        Fill(f"label=Value {i}", str(value))]
        return [*actions, s.click_button("Save"), Done()]


TEMPLATES = [CreateSalesProcess(), CreateTerritoryModel()]
