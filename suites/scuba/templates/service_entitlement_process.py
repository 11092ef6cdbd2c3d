"""Service persona: an entitlement process with its milestones (SCUBA's ``create_entitlement_process``), read
from a Metadata API retrieve of every ``EntitlementProcess`` as SCUBA's retrieval workflow does.

Ground truth: ``process_name``, ``record_type`` (Case, Incident, WorkOrder), ``milestones`` (a list of
``{"milestoneName": ..., "criteria": [[field, operation, value], ...]}``, criteria optional) and
``milestone_time_trigger`` (minutes). SCUBA looks the process up by its file name, the process name in lower
case, and scores: the process 0.1, its ``SObjectType`` 0.1, entry date ``<record type>.CreatedDate`` 0.1, exit
criteria exactly ``[(<record type>.IsClosed, equals, true)]`` 0.1; then 0.6 / n per expected milestone: the
milestone present, its ``minutesToComplete`` the trigger (0.3 each with criteria, 0.5 each without), and with
criteria the set of its criteria items (0.4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done, Fill, SelectOption

from . import metadata_io as md
from . import shared as s

if TYPE_CHECKING:
    from xml.etree import ElementTree as ET

    from pytest_cua import Environment, Task


def steps(truth: Mapping[str, Any]) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """The ground truth's milestones: (name, criteria), checked."""
    found = truth.get("milestones")
    if not isinstance(found, list) or not found or not all(isinstance(m, Mapping) and m.get("milestoneName")
                                                           for m in found):
        raise ValueError(f"ground truth 'milestones' must be a non-empty list of {{milestoneName, criteria}}, "
                         f"got {found!r}")
    out = []
    for m in found:
        crit = s.triples(m.get("criteria") or [], f"ground truth milestone {m['milestoneName']!r}: criteria",
                         empty=True)
        out.append((str(m["milestoneName"]), [(str(f), str(o), str(v)) for f, o, v in crit]))
    return out


def _filters(el: "ET.Element | None", tag: str) -> list[tuple[str | None, str | None, str | None]]:
    return [(md.text(i, "field"), md.text(i, "operation"), md.text(i, "value")) for i in md.items(el, tag)]


class CreateEntitlementProcess(s.ScubaTemplate):
    """An entitlement process of the record type, entered on creation, left when closed, with its milestones."""

    name = "create_entitlement_process"
    ground_truth_keys = ("milestone_time_trigger", "milestones", "process_name", "record_type")
    objects = ("EntityDefinition",)
    # four checks on the process, then 0.6 / n per milestone (see weights())
    milestones = {"entitlement process": 0.1, "record type": 0.1, "entry date": 0.1, "exit criteria": 0.1,
                  "milestones": 0.6}

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        out = {k: v for k, v in self.milestones.items() if k != "milestones"}
        listed = steps(truth)
        each = self.milestones["milestones"] / len(listed)
        for name, crit in listed:
            part = 0.3 if crit else 0.5
            out[f"milestone {name!r}"] = part * each
            out[f"milestone {name!r} time trigger"] = part * each
            if crit:
                out[f"milestone {name!r} criteria"] = 0.4 * each
        return out

    def check(self, ctx: EvalContext) -> None:
        truth = ctx.truth
        name, record_type = str(truth.get("process_name", "")), str(truth.get("record_type", ""))
        found = md.retrieve(ctx.env.org, {"EntitlementProcess": ["*"]}).get("entitlementProcesses", {})
        process = found.get(name.lower())
        gone = f"no entitlement process {name.lower()!r} (processes: {sorted(found)})"
        if s.exact() and process is not None:  # where SCUBA's evaluator raises KeyError (DEVIATIONS.md)
            s.crash_unless(md.text(process, "SObjectType") is not None,
                           "the process has no SObjectType (SCUBA: KeyError)")
            items = md.items(process, "exitCriteriaFilterItems")
            wanted = {n for n, _ in steps(truth)}
            items += [i for m in md.items(process, "milestones") if md.text(m, "milestoneName") in wanted
                      for i in md.items(m, "milestoneCriteriaFilterItems")]
            s.crash_unless(all(md.text(i, k) is not None for i in items for k in ("field", "operation", "value")),
                           "a filter item has no field, operation or value (SCUBA: KeyError)")
        with milestone("entitlement process"):
            assert process is not None, gone
        with milestone("record type"):
            assert process is not None, gone
            assert md.text(process, "SObjectType") == record_type, \
                f"SObjectType {md.text(process, 'SObjectType')!r}, expected {record_type!r}"
        with milestone("entry date"):
            assert process is not None, gone
            assert md.text(process, "entryStartDateField") == f"{record_type}.CreatedDate", \
                f"entry date {md.text(process, 'entryStartDateField')!r}, expected {record_type}.CreatedDate"
        with milestone("exit criteria"):
            assert process is not None, gone
            exit_items = _filters(process, "exitCriteriaFilterItems")
            assert exit_items == [(f"{record_type}.IsClosed", "equals", "true")], \
                f"exit criteria {exit_items}, expected [({record_type}.IsClosed, equals, true)]"
        observed = md.items(process, "milestones")
        trigger = str(truth.get("milestone_time_trigger"))
        for step, crit in steps(truth):
            hit = next((m for m in observed if md.text(m, "milestoneName") == step), None)
            with milestone(f"milestone {step!r}"):
                assert hit is not None, f"no milestone {step!r}" if process is not None else gone
            with milestone(f"milestone {step!r} time trigger"):
                minutes = md.text(hit, "minutesToComplete")
                assert minutes == trigger, f"milestone {step!r}: minutesToComplete {minutes!r}, expected {trigger}"
            if crit:
                with milestone(f"milestone {step!r} criteria"):
                    items = _filters(hit, "milestoneCriteriaFilterItems")
                    assert set(items) == set(crit), f"milestone {step!r}: criteria {items}, expected {crit}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        name, record_type = str(truth["process_name"]), str(truth["record_type"])
        trigger = str(truth["milestone_time_trigger"])
        parts = [md.element("exitCriteriaFilterItems", field=f"{record_type}.IsClosed", operation="equals",
                            value="true")]
        for step, crit in steps(truth):
            items = [md.element("milestoneCriteriaFilterItems", field=f, operation=o, value=v) for f, o, v in crit]
            parts.append(md.element("milestones", *items, milestoneName=step, minutesToComplete=trigger,
                                    useCriteriaStartTime=False))
        full = name.lower()
        md.deploy(sf, {f"entitlementProcesses/{full}.entitlementProcess":
                       md.component("EntitlementProcess", *parts, SObjectType=record_type, active=True,
                                    businessHours="Default", entryStartDateField=f"{record_type}.CreatedDate",
                                    isVersionDefault=True, name=name, versionMaster=full)},
                  {"EntitlementProcess": [full]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """Setup > Entitlement Processes > New Entitlement Process: the type and name (entered on creation, left
        when closed: the defaults), Save; then per milestone New Milestone: the milestone, the minutes, its
        criteria, Save."""
        truth = task.ground_truth
        actions: list[Action] = [*s.setup_link(env, "Entitlement Processes"), s.click_button("New Entitlement Process"),
                               SelectOption("label=Entitlement Process Type", str(truth["record_type"])),
                               s.click_button("Next"),
                               Fill("label=Entitlement Process Name", str(truth["process_name"])),
                               s.click_button("Save")]
        for step, criteria in steps(truth):
            actions += [s.click_button("New Milestone"), SelectOption("label=Milestone Name", step),
                      Fill("label=Time Trigger (Minutes)", str(truth["milestone_time_trigger"]))]
            for i, (field, op, value) in enumerate(criteria, 1):
                actions += [SelectOption(f"label=Criteria Field {i}", field),
                          SelectOption(f"label=Criteria Operator {i}", op), Fill(f"label=Criteria Value {i}", value)]
            actions.append(s.click_button("Save"))
        return [*actions, Done()]


TEMPLATES = [CreateEntitlementProcess()]
