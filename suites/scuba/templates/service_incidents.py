"""Service persona, incident management: open an incident with affected products; raise a change request
for an incident, link the two and move the incident on.

SCUBA's ``create_incident_record`` (ground truth ``incident_subject``, ``urgency``, ``impact``, ``priority``,
``products``, ``product_impact_type`` aligned with ``products``) and ``create_change_request_link_incident``
(``incident_subject``, ``change_request_subject``, ``change_request_priority``, ``change_request_impact``,
``change_request_risk_level``, ``incident_new_status``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.actions import Action, Done, Fill, SelectOption
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from ._service_admin import as_list, checked_rows, click_button, click_link, field_labels, norm, same_text
from .common import first, goto, soql_str

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task


def _find_by_subject(sf: Any, obj: str, subject: str, fields: str) -> dict[str, Any] | None:
    """The newest record of ``obj`` whose Subject equals ``subject`` (case and spacing ignored)."""
    matches = [r for r in checked_rows(sf, f"SELECT {fields}, CreatedDate FROM {obj} WHERE Subject = {soql_str(subject)}")]
    if not matches:  # a subject typed with other capitals or spacing still counts
        matches = [r for r in checked_rows(sf, f"SELECT {fields}, CreatedDate FROM {obj}")
                   if same_text(r.get("Subject"), subject)]
    matches.sort(key=lambda r: str(r.get("CreatedDate") or ""))
    return matches[-1] if matches else None


class CreateIncident(Template):
    """An incident with urgency, impact and priority, and one related item per affected product."""

    name = "create_incident_record"
    objects = ("Incident", "IncidentRelatedItem")
    milestones = {"incident exists": 0.25, "urgency, impact and priority": 0.25, "products linked": 0.25,
                  "product impact types": 0.25}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        subject = str(truth.get("incident_subject", ""))
        incident: dict[str, Any] | None = None
        items: dict[str, str | None] = {}
        with milestone("incident exists", 0.25):
            incident = _find_by_subject(sf, "Incident", subject, "Id, Subject, Urgency, Impact, Priority")
            assert incident is not None, f"no incident with subject {subject!r}"
        missing = f"no incident {subject!r}"
        with milestone("urgency, impact and priority", 0.25):
            assert incident is not None, missing
            wrong = [f"{f} is {incident.get(f)!r}, expected {truth.get(k)!r}"
                     for f, k in (("Urgency", "urgency"), ("Impact", "impact"), ("Priority", "priority"))
                     if norm(incident.get(f)) != norm(truth.get(k))]
            assert not wrong, "; ".join(wrong)
        products = as_list(truth.get("products"))
        with milestone("products linked", 0.25):
            assert incident is not None, missing
            for r in checked_rows(sf, f"SELECT Product2.Name, ImpactType FROM IncidentRelatedItem "
                                      f"WHERE IncidentId = {soql_str(incident['Id'])}"):
                items[norm((r.get("Product2") or {}).get("Name"))] = r.get("ImpactType")
            lacking = [p for p in products if norm(p) not in items]
            assert not lacking, f"products not linked to the incident: {lacking}"
        with milestone("product impact types", 0.25):
            assert incident is not None, missing
            types = as_list(truth.get("product_impact_type"))
            wrong = [f"{p}: {items.get(norm(p))!r}, expected {t!r}" for p, t in zip(products, types)
                     if norm(items.get(norm(p))) != norm(t)]
            assert not wrong, "impact types differ: " + "; ".join(wrong)

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        created = sf.Incident.create({"Subject": truth["incident_subject"], "Urgency": truth["urgency"],
                                      "Impact": truth["impact"], "Priority": truth["priority"]})
        for product, impact in zip(as_list(truth.get("products")), as_list(truth.get("product_impact_type"))):
            p = first(sf, f"SELECT Id FROM Product2 WHERE Name = {soql_str(product)}")
            assert p is not None, f"no product {product!r}"
            sf.IncidentRelatedItem.create({"IncidentId": created["id"], "Product2Id": p["Id"], "ImpactType": impact})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        subject = str(truth["incident_subject"])
        product_label = field_labels(sf, "IncidentRelatedItem").get("Product2Id", "Product")
        steps: list[Action] = [goto(env, "/lightning/o/Incident/list"), click_button("New"),
                               Fill("label=Subject", subject), SelectOption("label=Urgency", str(truth["urgency"])),
                               SelectOption("label=Impact", str(truth["impact"])),
                               SelectOption("label=Priority", str(truth["priority"])), click_button("Save")]
        for product, impact in zip(as_list(truth.get("products")), as_list(truth.get("product_impact_type"))):
            # saving opens the new item's page; its Incident link leads back to the incident
            steps += [click_button("New Incident Related Item"), Fill(f"label={product_label}", product),
                      SelectOption("label=Impact Type", impact), click_button("Save"), click_link(subject)]
        steps.append(Done())
        return steps


class LinkChangeRequest(Template):
    """A change request linked to an incident (ChangeRequestRelatedIssue), and the incident's new status."""

    name = "create_change_request_link_incident"
    objects = ("ChangeRequest", "ChangeRequestRelatedIssue", "Incident")
    milestones = {"change request exists": 0.25, "change request details": 0.25, "linked to the incident": 0.25,
                  "incident status": 0.25}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        cr_subject = str(truth.get("change_request_subject", ""))
        inc_subject = str(truth.get("incident_subject", ""))
        change: dict[str, Any] | None = None
        with milestone("change request exists", 0.25):
            change = _find_by_subject(sf, "ChangeRequest", cr_subject, "Id, Subject, Priority, Impact, RiskLevel")
            assert change is not None, f"no change request with subject {cr_subject!r}"
        with milestone("change request details", 0.25):
            assert change is not None, f"no change request {cr_subject!r}"
            wrong = [f"{f} is {change.get(f)!r}, expected {truth.get(k)!r}"
                     for f, k in (("Priority", "change_request_priority"), ("Impact", "change_request_impact"),
                                  ("RiskLevel", "change_request_risk_level"))
                     if norm(change.get(f)) != norm(truth.get(k))]
            assert not wrong, "; ".join(wrong)
        incidents = checked_rows(sf, f"SELECT Id, Subject, Status FROM Incident WHERE Subject = {soql_str(inc_subject)}")
        with milestone("linked to the incident", 0.25):
            assert change is not None, f"no change request {cr_subject!r}"
            assert incidents, f"no incident with subject {inc_subject!r}"
            linked = {r["RelatedIssueId"] for r in checked_rows(
                sf, f"SELECT RelatedIssueId FROM ChangeRequestRelatedIssue "
                    f"WHERE ChangeRequestId = {soql_str(change['Id'])} AND RelatedEntityType = 'Incident'")}
            assert linked & {i["Id"] for i in incidents}, (
                f"change request {cr_subject!r} is not linked to incident {inc_subject!r}")
        with milestone("incident status", 0.25):
            assert incidents, f"no incident with subject {inc_subject!r}"
            status = incidents[0].get("Status")
            want = truth.get("incident_new_status")
            assert norm(status) == norm(want), f"incident status is {status!r}, expected {want!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        incident = first(sf, f"SELECT Id FROM Incident WHERE Subject = {soql_str(truth['incident_subject'])}")
        assert incident is not None, f"seed has no incident {truth['incident_subject']!r}"
        created = sf.ChangeRequest.create({
            "Subject": truth["change_request_subject"], "Priority": truth["change_request_priority"],
            "Impact": truth["change_request_impact"], "RiskLevel": truth["change_request_risk_level"],
            "Description": truth.get("change_request_description")})
        sf.ChangeRequestRelatedIssue.create({"ChangeRequestId": created["id"], "RelatedIssueId": incident["Id"]})
        sf.Incident.update(incident["Id"], {"Status": truth["incident_new_status"]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        inc_subject = str(truth["incident_subject"])
        steps: list[Action] = [goto(env, "/lightning/o/ChangeRequest/list"), click_button("New"),
                               Fill("label=Subject", str(truth["change_request_subject"]))]
        if truth.get("change_request_description"):
            steps.append(Fill("label=Description", str(truth["change_request_description"])))
        steps += [SelectOption("label=Priority", str(truth["change_request_priority"])),
                  SelectOption("label=Impact", str(truth["change_request_impact"])),
                  SelectOption("label=Risk Level", str(truth["change_request_risk_level"])), click_button("Save"),
                  click_button("New Change Request Related Issue"), Fill("label=Related Issue", inc_subject),
                  click_button("Save"),
                  goto(env, "/lightning/o/Incident/list"),
                  Fill('role=searchbox[name="Search this list..."]', inc_subject), click_button("Search"),
                  click_link(inc_subject), click_button("Edit"),
                  SelectOption("label=Status", str(truth["incident_new_status"])), click_button("Save"), Done()]
        return steps


TEMPLATES = [CreateIncident(), LinkChangeRequest()]
