"""Sales: move an opportunity to a stage and log the activity that goes with it
(``update_opportunity_stage_and_activity``)."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.actions import Action, Click, Done
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from . import _sales as s
from .common import field, first, rows, soql_str

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task

TASK_SUBTYPES = ("Call", "Email", "ListEmail", "Cadence", "LinkedIn")


def activity_object(activity_type: str) -> str:
    """``Event`` for meetings, ``Task`` for everything else (tasks, calls, emails)."""
    return "Event" if str(activity_type).strip().lower() in ("event", "meeting") else "Task"


def task_subtype(activity_type: str) -> str | None:
    """The Task subtype an activity type asks for (``Call``, ``Email``), None for a plain task."""
    wanted = str(activity_type).strip().lower()
    return next((st for st in TASK_SUBTYPES if st.lower() == wanted), None)


class UpdateOpportunityStageAndActivity(Template):
    """Set an opportunity's stage and log an activity on it.

    Ground truth: ``opportunity_name``, ``stage_name``, ``activity_type`` (``Event``, ``Task``, ``Call``,
    ``Email``), ``activity_description`` (what the activity is about: its subject or description must say it).
    """

    name = "update_opportunity_stage_and_activity"
    objects = ("Opportunity", "Task", "Event")
    milestones = {"stage updated": 0.5, "activity logged": 0.5}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        opp = first(sf, f"SELECT Id, StageName FROM Opportunity WHERE Name = {soql_str(t['opportunity_name'])} LIMIT 1")
        with milestone("stage updated", 0.5):
            assert opp, f"no opportunity named {t['opportunity_name']!r}"
            assert field(opp, "StageName") == t["stage_name"], \
                f"stage is {field(opp, 'StageName')!r}, expected {t['stage_name']!r}"
        kind = activity_object(t["activity_type"])
        subtype = task_subtype(t["activity_type"])
        extra = ", TaskSubtype, Type" if kind == "Task" else ", EventSubtype"
        acts = rows(sf, f"SELECT Id, Subject, Description{extra} FROM {kind} "
                        f"WHERE WhatId = {soql_str(field(opp, 'Id'))}") if opp else []
        about = [a for a in acts
                 if s.covers(t["activity_description"], f"{a.get('Subject') or ''} {a.get('Description') or ''}")]
        with milestone("activity logged", 0.5):
            assert opp, "no opportunity, so no activity on it"
            assert about, (f"no {kind.lower()} on {t['opportunity_name']!r} about {t['activity_description']!r} "
                           f"(found: {[a.get('Subject') for a in acts]})")
            if subtype:
                assert any(subtype in (a.get("TaskSubtype"), a.get("Type")) for a in about), \
                    f"the task is not a {subtype} (subtype {[a.get('TaskSubtype') for a in about]})"

    @staticmethod
    def _activity(t: Any) -> tuple[str, dict[str, Any]]:
        kind = activity_object(t["activity_type"])
        text = str(t["activity_description"])
        values: dict[str, Any] = {"Subject": text[:255], "Description": text}
        if kind == "Task":
            subtype = task_subtype(t["activity_type"])
            if subtype:
                values["TaskSubtype"] = subtype
        return kind, values

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
        return [*s.open_record(env, "Opportunity", opp_id),
                *s.new_related(env, kind, values),
                *s.open_record(env, "Opportunity", opp_id),
                Click(s.button("Edit")), *s.fill_form(env, "Opportunity", {"StageName": t["stage_name"]}),
                *s.save(), Done()]


TEMPLATES = [UpdateOpportunityStageAndActivity()]
