"""Service persona: a case assignment rule (SCUBA's ``create_case_assignment_rule``).

Ground truth: ``rule_name``, ``entry_conditions`` ([field, operation, value]), ``logic_operator`` (``AND``,
``OR`` or empty), ``assignee`` and ``assignee_type`` (``Queue``: the queue's developer name; ``User``: the start
of the username), ``sort_order``. SCUBA reads the Case assignment rules and the first rule entry of the rule
of that name: the rule exists (0.1); the entry assigns to the assignee (0.2); each condition is one of the
entry's criteria (0.5 split equally); the entry's filter logic without its numbers is the operator (0.2; an
``AND`` task passes it whatever the logic, as SCUBA scores it).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done, Fill, SelectOption

from . import metadata_io as md
from . import shared as s

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def _conditions(truth: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    found = s.triples(truth.get("entry_conditions"), "ground truth 'entry_conditions'")
    return [(str(f), str(o), str(v)) for f, o, v in found]


class CreateCaseAssignmentRule(s.ScubaTemplate):
    """A Case assignment rule whose entry routes matching cases to a queue or user."""

    name = "create_case_assignment_rule"
    ground_truth_keys = ("assignee", "assignee_type", "entry_conditions", "logic_operator", "rule_name", "sort_order")
    objects = ()
    milestones = {"assignment rule exists": 0.1, "assigned to the assignee": 0.2,
                  "entry conditions": 0.5, "filter logic": 0.2}  # entry conditions: split (see weights())

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        conditions = _conditions(truth)
        out = {"assignment rule exists": self.milestones["assignment rule exists"],
               "assigned to the assignee": self.milestones["assigned to the assignee"]}
        for c in conditions:
            out[f"condition {list(c)}"] = self.milestones["entry conditions"] / len(conditions)
        out["filter logic"] = self.milestones["filter logic"]
        return out

    def check(self, ctx: EvalContext) -> None:
        truth = ctx.truth
        name = str(truth.get("rule_name", ""))
        rules = md.read_one(ctx.env.org, "AssignmentRules", "Case")
        rule = next((r for r in md.items(rules, "assignmentRule") if md.text(r, "fullName") == name), None)
        entry = rule.find("ruleEntry") if rule is not None else None
        with milestone("assignment rule exists"):
            assert rule is not None, f"no Case assignment rule named {name!r}"
        with milestone("assigned to the assignee"):
            assert rule is not None, f"no Case assignment rule named {name!r}"
            kind, who = md.text(entry, "assignedToType"), md.text(entry, "assignedTo") or ""
            assignee, expected_kind = str(truth.get("assignee", "")), truth.get("assignee_type")
            same = who.startswith(assignee) if expected_kind == "User" else who == assignee
            assert kind == expected_kind and same, \
                f"the rule assigns to {kind} {who!r}, expected {expected_kind} {assignee!r}"
        criteria = [(md.text(c, "field"), md.text(c, "operation"), md.text(c, "value"))
                    for c in md.items(entry, "criteriaItems")]
        for c in _conditions(truth):
            with milestone(f"condition {list(c)}"):
                assert c in criteria, f"the rule entry's criteria are {criteria}, not {c}"
        with milestone("filter logic"):
            connector = re.sub(r"\d+", "", md.text(entry, "booleanFilter") or "").strip()
            operator = truth.get("logic_operator")
            assert connector == operator or operator == "AND", \
                f"the filter logic connects with {connector!r}, expected {operator!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        truth = task.ground_truth
        conditions = _conditions(truth)
        entry: dict[str, Any] = {"assignedTo": truth["assignee"], "assignedToType": truth["assignee_type"]}
        operator = str(truth.get("logic_operator") or "")
        if operator and len(conditions) > 1:
            entry["booleanFilter"] = f" {operator} ".join(str(i) for i in range(1, len(conditions) + 1))
        entry["criteriaItems"] = [{"field": f, "operation": o, "value": v} for f, o, v in conditions]
        md.upsert(env.org, "AssignmentRule", f"Case.{truth['rule_name']}",  # type: ignore[attr-defined]
                  {"active": False, "ruleEntry": entry})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """Setup > Case Assignment Rules > New (the name), Save; the rule's New entry: each condition, the filter
        logic when the conditions are joined by OR or AND, the assignee, Save."""
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        conditions = _conditions(truth)
        steps: list[Action] = [*s.setup_link(env, "Case Assignment Rules"), s.click_button("New"),
                               Fill("label=Rule Name", str(truth["rule_name"])), s.click_button("Save"),
                               s.click_button("New")]
        for i, (field, op, value) in enumerate(conditions, 1):
            steps += [SelectOption(f"label=Field {i}", str(field)), SelectOption(f"label=Operator {i}", str(op)),
                      Fill(f"label=Value {i}", str(value))]
        operator = str(truth.get("logic_operator") or "")
        if operator and len(conditions) > 1:
            steps.append(Fill("label=Filter Logic", f" {operator} ".join(str(i) for i in range(1, len(conditions) + 1))))
        kind, who = str(truth["assignee_type"]), str(truth["assignee"])
        if kind == "User":
            user = next((r for r in s.rows(sf, "SELECT Username FROM User WHERE IsActive = true")
                         if str(r["Username"]).startswith(who)), None)
            who = str(user["Username"]) if user else who
        return [*steps, SelectOption("label=Assign To", f"{kind}:{who}"), s.click_button("Save"), Done()]


TEMPLATES = [CreateCaseAssignmentRule()]
