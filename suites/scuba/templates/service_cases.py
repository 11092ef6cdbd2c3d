"""Service persona, case management: escalate a case (status and other fields, possibly a new owner).

SCUBA's ``escalate_case_change_owner``: ground truth ``case_subject``, ``new_status`` and ``other_updates``
(field API name -> value; a reference field such as ``OwnerId`` takes the related record's name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua.actions import Action, Done, Fill, SelectOption
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from ._service_admin import checked_rows, click_button, click_link, field_labels, norm, same_text, user_by_name
from .common import first, goto, soql_str

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task

# reference fields an update may name, with the relationship whose Name the ground truth gives
_REFERENCES = {"OwnerId": "Owner", "ContactId": "Contact", "AccountId": "Account", "EntitlementId": "Entitlement",
               "ParentId": "Parent", "ProductId": "Product"}


def _updates(truth: Mapping[str, Any]) -> dict[str, Any]:
    other = truth.get("other_updates") or {}
    return dict(other) if isinstance(other, Mapping) else {}


class EscalateCase(Template):
    """Change a case's status and the other fields named in the ground truth."""

    name = "escalate_case_change_owner"
    objects = ("Case",)
    milestones = {"case status": 0.5, "other case updates": 0.5}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        subject = str(truth.get("case_subject", ""))
        updates = _updates(truth)
        fields = ["Id", "Status"]
        for name in updates:
            fields.append(f"{_REFERENCES[name]}.Name" if name in _REFERENCES else name)
        with milestone("case status", 0.5):
            found = checked_rows(sf, f"SELECT {', '.join(dict.fromkeys(fields))} FROM Case "
                                     f"WHERE Subject = {soql_str(subject)}")
            assert found, f"no case with subject {subject!r}"
            case = found[0]
            assert case.get("Status") == truth.get("new_status"), (
                f"case {subject!r} has status {case.get('Status')!r}, expected {truth.get('new_status')!r}")
        with milestone("other case updates", 0.5):
            assert found, f"no case with subject {subject!r}"
            wrong = []
            for name, want in updates.items():
                if name in _REFERENCES:
                    got = (case.get(_REFERENCES[name]) or {}).get("Name")
                    ok = same_text(got, want)
                else:
                    got = case.get(name)
                    ok = got == want or norm(got) == norm(want)
                if not ok:
                    wrong.append(f"{name} is {got!r}, expected {want!r}")
            assert not wrong, "; ".join(wrong)

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        case = first(sf, f"SELECT Id FROM Case WHERE Subject = {soql_str(truth['case_subject'])}")
        assert case is not None, f"seed has no case {truth['case_subject']!r}"
        values: dict[str, Any] = {"Status": truth["new_status"]}
        for name, value in _updates(truth).items():
            if name == "OwnerId":
                user = user_by_name(sf, str(value))
                assert user is not None, f"no user {value!r}"
                value = user["Id"]
            values[name] = value
        sf.Case.update(case["Id"], values)

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        subject = str(truth["case_subject"])
        case = first(sf, f"SELECT Id, CaseNumber FROM Case WHERE Subject = {soql_str(subject)}")
        assert case is not None, f"seed has no case {subject!r}"
        steps: list[Action] = [goto(env, "/lightning/o/Case/list"),
                               Fill('role=searchbox[name="Search this list..."]', subject), click_button("Search"),
                               click_link(case["CaseNumber"]), click_button("Edit"),
                               SelectOption("label=Status", str(truth["new_status"]))]
        described = {f["name"]: f for f in sf.restful("sobjects/Case/describe")["fields"]}
        labels = field_labels(sf, "Case")
        for name, value in _updates(truth).items():
            label = labels.get(name, name)
            if (described.get(name) or {}).get("type") == "picklist":
                steps.append(SelectOption(f"label={label}", str(value)))
            else:
                steps.append(Fill(f"label={label}", str(value)))
        steps += [click_button("Save"), Done()]
        return steps


TEMPLATES = [EscalateCase()]
