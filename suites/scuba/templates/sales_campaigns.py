"""Sales: a new campaign with its budget, expected revenue and invited leads (``create_campaign``).

Scored as SCUBA scores it (milestone_evaluator_sales.py): the first campaign of the name; type, start date
(a number counts weeks from today), budget and expected revenue exact; its members' leads exactly the
listed ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence
from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Check, Done

from . import shared as s
from .common import field, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def start_date(value: Any) -> str:
    """The expected start date: a bare number counts weeks from today (SCUBA's form), else a relative date."""
    return s.relative_date(value, number_unit="week").isoformat()


class CreateCampaign(s.ScubaTemplate):
    """A campaign of a type, starting on a date, with budget and expected revenue, and leads invited.

    Ground truth: ``campaign_name``, ``campaign_type``, ``start_date`` (a number of weeks from today, an ISO
    date or ``"two weeks from today"``), ``budget_amount``, ``expected_revenue``, ``leads`` (names).
    """

    name = "create_campaign"
    ground_truth_keys = ("budget_amount", "campaign_name", "campaign_type", "expected_revenue", "leads", "start_date")
    objects = ("Campaign", "CampaignMember")
    milestones = {"campaign created": 0.1, "type": 0.1, "start date": 0.2, "budget": 0.2,
                  "expected revenue": 0.2, "leads invited": 0.2}

    def check(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        found = s.checked_rows(sf, "SELECT Id, Type, StartDate, BudgetedCost, ExpectedRevenue FROM Campaign "
                                   f"WHERE Name = {soql_str(t['campaign_name'])}")
        camp = found[0] if found else None
        with milestone("campaign created"):
            assert camp, f"no campaign named {t['campaign_name']!r}"
        with milestone("type"):
            assert camp, "no campaign to check"
            assert field(camp, "Type") == t["campaign_type"], \
                f"type is {field(camp, 'Type')!r}, expected {t['campaign_type']!r}"
        with milestone("start date"):
            assert camp, "no campaign to check"
            want = start_date(t["start_date"])
            assert field(camp, "StartDate") == want, f"start date is {field(camp, 'StartDate')!r}, expected {want}"
        for title, fname, key in (("budget", "BudgetedCost", "budget_amount"),
                                  ("expected revenue", "ExpectedRevenue", "expected_revenue")):
            with milestone(title):
                assert camp, "no campaign to check"
                assert s.same_number(field(camp, fname), t[key]), f"{fname} is {field(camp, fname)!r}, expected {t[key]!r}"
        members = s.checked_rows(sf, "SELECT Lead.Name FROM CampaignMember "
                                     f"WHERE Campaign.Name = {soql_str(t['campaign_name'])}")
        invited = [field(m, "Lead.Name") for m in members]
        with milestone("leads invited"):
            assert camp, "no campaign, so nobody is invited"
            assert members and set(invited) == set(s.names(t["leads"])), \
                f"the campaign's leads are {sorted(map(str, invited))}, expected {sorted(s.names(t['leads']))}"

    def _values(self, t: Any) -> dict[str, Any]:
        return {"Name": t["campaign_name"], "Type": t["campaign_type"], "StartDate": start_date(t["start_date"]),
                "BudgetedCost": t["budget_amount"], "ExpectedRevenue": t["expected_revenue"]}

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, t = env.org, task.ground_truth  # type: ignore[attr-defined]
        camp = sf.Campaign.create(self._values(t))
        for lead in s.names(t["leads"]):
            sf.CampaignMember.create({"CampaignId": camp["id"], "LeadId": s.require_id(sf, "Lead", lead)})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        t = task.ground_truth
        steps: list[Action] = list(s.new_from_list(env, "Campaign", self._values(t)))
        # the campaign's Campaign Members: Add Leads > select the leads > Next > Submit
        steps.append(s.click_button("Add Leads"))
        steps += [Check(f"label={lead}") for lead in s.names(t["leads"])]
        return [*steps, s.click_button("Next"), s.click_button("Submit"), Done()]


TEMPLATES = [CreateCampaign()]
