"""Sales: move an opportunity to a stage and log the activity that goes with it
(``update_opportunity_stage_and_activity``), scored as SCUBA scores it (milestone_evaluator_sales.py): the
first opportunity of the name, a task (or event) on it, its subtype and its exact Subject (a call: its
Description, case ignored).

Deliberate deviation (DEVIATIONS.md): SCUBA judges the first activity its query returns, which on an
opportunity that already had activities is an old one; the newest activity is judged here.
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done

from . import shared as s
from .common import field, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task

# activity type -> (object, subtype field)
KINDS = {"Task": ("Task", "TaskSubtype"), "Email": ("Task", "TaskSubtype"), "Call": ("Task", "TaskSubtype"),
         "Event": ("Event", "EventSubtype")}


class UpdateOpportunityStageAndActivity(s.ScubaTemplate):
    """Set an opportunity's stage and log an activity on it.

    Ground truth: ``opportunity_name``, ``stage_name``, ``activity_type`` (``Event``, ``Task``, ``Call``,
    ``Email``: the activity's subtype), ``activity_description`` (the Subject; for a call, the Description).
    """

    name = "update_opportunity_stage_and_activity"
    ground_truth_keys = ("activity_description", "activity_type", "opportunity_name", "stage_name")
    objects = ("Opportunity", "Task", "Event")
    milestones = {"stage updated": 0.4, "activity of the type": 0.3, "activity described": 0.3}

    def check(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        opps = s.checked_rows(sf, f"SELECT Id, StageName FROM Opportunity WHERE Name = {soql_str(t['opportunity_name'])}")
        opp = opps[0] if opps else None
        if s.exact():  # SCUBA's retrieval reads records[0] of the opportunities: IndexError without one
            s.crash_unless(opp, f"no opportunity named {t['opportunity_name']!r} (SCUBA's retrieval: IndexError)")
        with milestone("stage updated"):
            assert opp, f"no opportunity named {t['opportunity_name']!r}"
            assert field(opp, "StageName") == t["stage_name"], \
                f"stage is {field(opp, 'StageName')!r}, expected {t['stage_name']!r}"
        kind = KINDS.get(str(t["activity_type"]))
        acts = s.checked_rows(sf, f"SELECT Id, Description, Subject, {kind[1]} FROM {kind[0]} "
                                  f"WHERE WhatId = {soql_str(opp['Id'])}"
                                  # SCUBA judges records[0] (the first made); ours the newest (DEVIATIONS.md)
                                  + ("" if s.exact() else " ORDER BY CreatedDate DESC, Id DESC")) \
            if opp and kind else []
        act = acts[0] if acts else None
        with milestone("activity of the type"):
            assert kind, f"unknown activity type {t['activity_type']!r}"
            assert act, f"no {kind[0].lower()} on {t['opportunity_name']!r}"
            assert act.get(kind[1]) == t["activity_type"], \
                f"the {kind[0].lower()}'s {kind[1]} is {act.get(kind[1])!r}, expected {t['activity_type']!r}"
        with milestone("activity described"):
            assert kind and act, "no activity to check"
            want = str(t["activity_description"])
            if t["activity_type"] == "Call":
                got = act.get("Description")
                assert str(got).lower() == want.lower(), f"the call's description is {got!r}, expected {want!r}"
            else:
                got = act.get("Subject")
                assert str(got) == want, f"the {kind[0].lower()}'s subject is {got!r}, expected {want!r}"

    @staticmethod
    def _activity(t: Any) -> tuple[str, dict[str, Any]]:
        kind, subtype_field = KINDS.get(str(t["activity_type"]), ("Task", "TaskSubtype"))
        text = str(t["activity_description"])
        return kind, {"Subject": text[:255], "Description": text, subtype_field: t["activity_type"]}

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, t = env.org, task.ground_truth  # type: ignore[attr-defined]
        opp_id = s.require_id(sf, "Opportunity", t["opportunity_name"])
        sf.Opportunity.update(opp_id, {"StageName": t["stage_name"]})
        kind, values = self._activity(t)
        values["WhatId"] = opp_id
        if kind == "Event":
            start = _dt.datetime.combine(s.today() + _dt.timedelta(days=1), _dt.time(10, 0))
            values.update({"StartDateTime": start.strftime("%Y-%m-%dT%H:%M:%S.000+0000"),
                           "EndDateTime": (start + _dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S.000+0000"),
                           "DurationInMinutes": 60})
        getattr(sf, kind).create(values)

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        t = task.ground_truth
        opp_id = s.require_id(env.org, "Opportunity", t["opportunity_name"])  # type: ignore[attr-defined]
        kind, values = self._activity(t)
        if t["activity_type"] == kind:  # a plain task or event: the form's default subtype
            values = {k: v for k, v in values.items() if not k.endswith("Subtype")}
        return [*s.open_record(env, "Opportunity", opp_id),
                *s.new_related(env, kind, values),
                *s.open_record(env, "Opportunity", opp_id),
                *s.path_step(t["stage_name"]), Done()]


TEMPLATES = [UpdateOpportunityStageAndActivity()]
