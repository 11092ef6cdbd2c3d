"""Sales: a new campaign with its budget, expected revenue and invited leads (``create_campaign``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence
from urllib.parse import quote

from pytest_cua.actions import Action, Click, Done
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from . import _sales as s
from .common import field, first, goto, rows, soql_str

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task

WEEK = 7


def start_dates(value: Any) -> set[str]:
    """What a ground-truth start date may be: a bare number counts weeks from today (SCUBA's form)."""
    return s.date_candidates(value, int_unit_days=WEEK)


class CreateCampaign(Template):
    """A campaign of a type, starting on a date, with budget and expected revenue, and leads invited.

    Ground truth: ``campaign_name``, ``campaign_type``, ``start_date`` (ISO date, ``"two weeks from today"``
    or a number of weeks from today), ``budget_amount``, ``expected_revenue``, ``leads`` (names, a list or
    ``"A and B"``).
    """

    name = "create_campaign"
    objects = ("Campaign", "CampaignMember")
    milestones = {"campaign created": 0.2, "type": 0.1, "start date": 0.15, "budget": 0.15,
                  "expected revenue": 0.15, "leads invited": 0.25}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        camp = first(sf, "SELECT Id, Type, StartDate, BudgetedCost, ExpectedRevenue FROM Campaign "
                         f"WHERE Name = {soql_str(t['campaign_name'])} ORDER BY CreatedDate DESC LIMIT 1")
        with milestone("campaign created", 0.2):
            assert camp, f"no campaign named {t['campaign_name']!r}"
        with milestone("type", 0.1):
            assert camp, "no campaign to check"
            assert field(camp, "Type") == t["campaign_type"], \
                f"type is {field(camp, 'Type')!r}, expected {t['campaign_type']!r}"
        with milestone("start date", 0.15):
            assert camp, "no campaign to check"
            want = start_dates(t["start_date"])
            assert want, f"cannot read the expected start date {t['start_date']!r}"
            assert field(camp, "StartDate") in want, \
                f"start date is {field(camp, 'StartDate')!r}, expected {' or '.join(sorted(want))}"
        with milestone("budget", 0.15):
            assert camp, "no campaign to check"
            assert s.same_number(field(camp, "BudgetedCost"), t["budget_amount"]), \
                f"budgeted cost is {field(camp, 'BudgetedCost')!r}, expected {t['budget_amount']!r}"
        with milestone("expected revenue", 0.15):
            assert camp, "no campaign to check"
            assert s.same_number(field(camp, "ExpectedRevenue"), t["expected_revenue"]), \
                f"expected revenue is {field(camp, 'ExpectedRevenue')!r}, expected {t['expected_revenue']!r}"
        members = rows(sf, "SELECT Lead.Name FROM CampaignMember "
                           f"WHERE CampaignId = {soql_str(field(camp, 'Id'))}") if camp else []
        invited = {" ".join(str(field(m, "Lead.Name") or "").lower().split()) for m in members}
        with milestone("leads invited", 0.25):
            assert camp, "no campaign, so nobody is invited"
            missing = [n for n in s.names(t["leads"]) if " ".join(n.lower().split()) not in invited]
            assert not missing, f"not invited: {missing}"

    def _values(self, t: Any) -> dict[str, Any]:
        start = s.resolve_date(t["start_date"], int_unit_days=WEEK)
        return {"Name": t["campaign_name"], "Type": t["campaign_type"], "StartDate": start.isoformat() if start else None,
                "BudgetedCost": t["budget_amount"], "ExpectedRevenue": t["expected_revenue"]}

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, t = env.org, task.ground_truth  # type: ignore[attr-defined]
        camp = sf.Campaign.create(self._values(t))
        for lead in s.names(t["leads"]):
            sf.CampaignMember.create({"CampaignId": camp["id"], "LeadId": s.require_id(sf, "Lead", lead)})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        t = task.ground_truth
        steps: list[Action] = list(s.new_from_list(env, "Campaign", self._values(t)))
        for n, lead in enumerate(s.names(t["leads"])):
            if n:  # "Save" opened the new member: back to the campaign, found by its name
                steps += [goto(env, f"/lightning/o/Campaign/list?q={quote(str(t['campaign_name']))}"),
                          Click(s.link(str(t["campaign_name"])))]
            steps += s.new_related(env, "CampaignMember", {"LeadId": lead})
        return [*steps, Done()]


TEMPLATES = [CreateCampaign()]
