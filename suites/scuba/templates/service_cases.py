"""Service persona, case management: escalate a case (status and other fields, possibly a new owner).

SCUBA's ``escalate_case_change_owner``, scored as SCUBA scores it (milestone_evaluator_service.py): ground
truth ``case_subject``, ``new_status`` (0.5) and ``other_updates`` (field API name -> value, 0.5 / k each,
exact values on the first case of the subject). A reference field such as ``OwnerId`` (own tasks only;
SCUBA's query selects no reference field) takes the related record's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done, Fill, Press, SelectOption

from . import shared as s
from .common import first, goto, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task

# reference fields an update may name, with the relationship whose Name the ground truth gives
_REFERENCES = {"OwnerId": "Owner", "ContactId": "Contact", "AccountId": "Account", "EntitlementId": "Entitlement",
               "ParentId": "Parent", "ProductId": "Product"}


#: the Case fields SCUBA's retrieval selects (its evaluator reads any other as None)
_SCUBA_SELECTS = ("Id", "Status", "Priority", "SLAViolation__c", "PotentialLiability__c")


def _updates(truth: Mapping[str, Any]) -> dict[str, Any]:
    other = truth.get("other_updates") or {}
    return dict(other) if isinstance(other, Mapping) else {}


class EscalateCase(s.ScubaTemplate):
    """Change a case's status and the other fields named in the ground truth."""

    name = "escalate_case_change_owner"
    ground_truth_keys = ("case_subject", "new_status", "other_updates")
    objects = ("Case",)

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        updates = _updates(truth)
        return {"case status": 0.5, **s.share(0.5, (f"{k} updated" for k in updates))}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        subject = str(truth.get("case_subject", ""))
        updates = _updates(truth)
        fields = ["Id", "Status", "Priority"]
        for fname in updates:
            fields.append(f"{_REFERENCES[fname]}.Name" if fname in _REFERENCES else fname)
        found = s.checked_rows(sf, f"SELECT {', '.join(dict.fromkeys(fields))} FROM Case "
                                   f"WHERE Subject = {soql_str(subject)}")
        case = found[0] if found else None
        with milestone("case status"):
            assert case is not None, f"no case with subject {subject!r}"
            assert case.get("Status") == truth.get("new_status"), (
                f"case {subject!r} has status {case.get('Status')!r}, expected {truth.get('new_status')!r}")
        for fname, want in updates.items():
            with milestone(f"{fname} updated"):
                assert case is not None, f"no case with subject {subject!r}"
                got = (case.get(_REFERENCES[fname]) or {}).get("Name") if fname in _REFERENCES else case.get(fname)
                if s.exact() and fname not in _SCUBA_SELECTS:  # SCUBA's query lacks the field: .get() is None
                    got = None
                assert got == want, f"{fname} is {got!r}, expected {want!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        case = first(sf, f"SELECT Id FROM Case WHERE Subject = {soql_str(truth['case_subject'])}")
        assert case is not None, f"seed has no case {truth['case_subject']!r}"
        values: dict[str, Any] = {"Status": truth["new_status"]}
        for fname, value in _updates(truth).items():
            if fname == "OwnerId":
                user = s.user_by_name(sf, str(value))
                assert user is not None, f"no user {value!r}"
                value = user["Id"]
            values[fname] = value
        sf.Case.update(case["Id"], values)

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        subject = str(truth["case_subject"])
        case = first(sf, f"SELECT Id, CaseNumber FROM Case WHERE Subject = {soql_str(subject)}")
        assert case is not None, f"seed has no case {subject!r}"
        # a status the org's Case Status lacks is added first (Setup), as a person who may change setup does
        steps: list[Action] = [*s.picklist_value_steps(env, "Case", "Status", str(truth["new_status"])),
                               goto(env, "/lightning/o/Case/list"),
                               Fill('role=searchbox[name="Search this list..."]', subject), Press("Enter"),
                               s.click_link(case["CaseNumber"]), s.click_button("Edit"),
                               SelectOption("label=Status", str(truth["new_status"]))]
        described = {f["name"]: f for f in sf.restful("sobjects/Case/describe")["fields"]}
        labels = s.field_labels(sf, "Case")
        for fname, value in _updates(truth).items():
            flabel = labels.get(fname, fname)
            if (described.get(fname) or {}).get("type") == "picklist":
                steps.append(SelectOption(f"label={flabel}", str(value)))
            elif (described.get(fname) or {}).get("type") == "reference":  # a lookup holding the case's value
                steps += s.choose_record(flabel, str(value), replace=True)
            else:
                steps.append(Fill(f"label={flabel}", str(value)))
        steps += [s.click_button("Save"), Done()]
        return steps


TEMPLATES = [EscalateCase()]
