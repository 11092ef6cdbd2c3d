"""Service: a case opened with its full context (SCUBA's ``create_case_context_setup``).

Ground truth: ``subject``, ``case_status``, ``case_origin`` (which find the case, as SCUBA's query
``... FROM Case WHERE Subject = ... AND Status = ... AND Origin = ...`` does: SOQL's case-insensitive
equality), then ``priority``, ``case_type``, ``case_reasoning`` (Reason) and ``contact_name`` (Contact.Name),
compared exactly on the first case found. Weights are SCUBA's: 0.4 for the case, 0.15 for each of the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done

from . import shared as s
from .common import field, first, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task

# milestone -> (Case field, ground-truth key) of the four checks on the case found
_CHECKS = {"priority": ("Priority", "priority"), "type": ("Type", "case_type"),
           "case reason": ("Reason", "case_reasoning"), "contact": ("Contact.Name", "contact_name")}


def _values(truth: Mapping[str, Any]) -> dict[str, Any]:
    return {"Subject": truth["subject"], "Status": truth["case_status"], "Origin": truth["case_origin"],
            "Priority": truth["priority"], "Type": truth["case_type"], "Reason": truth["case_reasoning"]}


class CreateCaseContextSetup(s.ScubaTemplate):
    """A case with subject, status and origin; its priority, type, reason and contact."""

    name = "create_case_context_setup"
    ground_truth_keys = ("case_origin", "case_reasoning", "case_status", "case_type", "contact_name", "priority",
                         "subject")
    objects = ("Case",)
    milestones = {"case with subject, status and origin": 0.4, "priority": 0.15, "type": 0.15,
                  "case reason": 0.15, "contact": 0.15}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        wanted = (f"subject {truth.get('subject')!r}, status {truth.get('case_status')!r} and origin "
                  f"{truth.get('case_origin')!r}")
        case: dict[str, Any] | None = None
        with milestone("case with subject, status and origin"):
            found = s.checked_rows(sf, "SELECT Id, Priority, Type, Reason, Contact.Name FROM Case "
                                     f"WHERE Subject = {soql_str(truth.get('subject', ''))} "
                                     f"AND Status = {soql_str(truth.get('case_status', ''))} "
                                     f"AND Origin = {soql_str(truth.get('case_origin', ''))} ORDER BY CreatedDate, Id")
            case = found[0] if found else None
            assert case is not None, f"no case with {wanted}"
        for name, (path, key) in _CHECKS.items():
            with milestone(name):
                assert case is not None, f"no case with {wanted}"
                assert field(case, path) == truth.get(key), \
                    f"{path} is {field(case, path)!r}, expected {truth.get(key)!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        contact = first(sf, f"SELECT Id FROM Contact WHERE Name = {soql_str(truth['contact_name'])} "
                            "ORDER BY CreatedDate, Id")
        assert contact is not None, f"the seed has no contact {truth['contact_name']!r}"
        sf.Case.create({**_values(truth), "ContactId": contact["Id"]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        values = {**_values(truth), "ContactId": truth["contact_name"]}
        return [*s.new_from_list(env, "Case", values), Done()]


TEMPLATES = [CreateCaseContextSetup()]
