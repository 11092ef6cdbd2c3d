"""Sales: new leads (``create_lead``) and lead conversion (``convert_lead``), scored as SCUBA scores them
(milestone_evaluator_sales.py): the first lead of the name, exact values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Click, Done, Fill, SelectOption

from . import shared as s
from .common import field, first, soql_str, split_name

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


class CreateLead(s.ScubaTemplate):
    """A new lead with its company, source and rating.

    Ground truth: ``lead_name``, ``company_name``, ``lead_source``, ``rating`` (picklist values).
    """

    name = "create_lead"
    ground_truth_keys = ("company_name", "lead_name", "lead_source", "rating")
    objects = ("Lead",)
    milestones = {"lead created": 0.3, "company": 0.2, "lead source": 0.3, "rating": 0.2}

    def check(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        leads = s.checked_rows(sf, "SELECT Id, LeadSource, Name, Company, Rating FROM Lead "
                                   f"WHERE Name = {soql_str(t['lead_name'])}")
        lead = leads[0] if leads else None
        with milestone("lead created"):
            assert lead, f"no lead named {t['lead_name']!r}"
        for key, fname, title in (("company_name", "Company", "company"), ("lead_source", "LeadSource", "lead source"),
                                  ("rating", "Rating", "rating")):
            with milestone(title):
                assert lead, "no lead to check"
                assert field(lead, fname) == t[key], f"{title} is {field(lead, fname)!r}, expected {t[key]!r}"

    def _values(self, task: "Task") -> dict[str, Any]:
        t = task.ground_truth
        first_name, last_name = split_name(t["lead_name"])
        values: dict[str, Any] = {"FirstName": first_name, "LastName": last_name, "Company": t["company_name"],
                                  "LeadSource": t["lead_source"], "Rating": t["rating"]}
        return {k: v for k, v in values.items() if v}

    def solve(self, task: "Task", env: "Environment") -> None:
        env.org.Lead.create(self._values(task))  # type: ignore[attr-defined]

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        return [*s.new_from_list(env, "Lead", self._values(task)), Done()]


class ConvertLead(s.ScubaTemplate):
    """Convert a lead: into the account named ``account_name`` when given (an existing account), otherwise
    into a new account named after the lead's company, with a new opportunity.

    Ground truth: ``lead_name``, ``opportunity_name``; optional ``account_name`` (used by the solver only:
    SCUBA checks that the conversion has an account, not its name).
    """

    name = "convert_lead"
    ground_truth_keys = ("account_name", "lead_name", "opportunity_name")
    ground_truth_optional = ("account_name",)
    objects = ("Lead", "Account", "Contact", "Opportunity")
    milestones = {"lead converted": 0.3, "opportunity created": 0.1, "opportunity name": 0.3,
                  "account created or linked": 0.3}

    def check(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        leads = s.checked_rows(sf, "SELECT Id, IsConverted, ConvertedAccountId, ConvertedOpportunityId FROM Lead "
                                   f"WHERE Name = {soql_str(t['lead_name'])}")
        lead = leads[0] if leads else None
        opp_id, account_id = field(lead, "ConvertedOpportunityId"), field(lead, "ConvertedAccountId")
        opps = s.checked_rows(sf, f"SELECT Id, Name FROM Opportunity WHERE Id = {soql_str(opp_id)}") if opp_id else []
        accounts = s.checked_rows(sf, f"SELECT Id, Name FROM Account WHERE Id = {soql_str(account_id)}") \
            if account_id else []
        with milestone("lead converted"):
            assert lead, f"no lead named {t['lead_name']!r}"
            assert field(lead, "IsConverted") is True, f"lead {t['lead_name']!r} is not converted"
        with milestone("opportunity created"):
            assert opps, "the lead's conversion has no opportunity"
        with milestone("opportunity name"):
            assert opps, "no opportunity to check"
            assert opps[0].get("Name") == t["opportunity_name"], \
                f"opportunity is {opps[0].get('Name')!r}, expected {t['opportunity_name']!r}"
        with milestone("account created or linked"):
            assert accounts, "the lead's conversion has no account"

    def solve(self, task: "Task", env: "Environment") -> None:
        # The REST API has no lead conversion: the oracle converts with the SOAP API's convertLead, as a client
        # of a real org does.
        t, sf = task.ground_truth, env.org  # type: ignore[attr-defined]
        lead_id = s.require_id(sf, "Lead", t["lead_name"])
        existing = self._existing_account(sf, t)
        account_id = s.require_id(sf, "Account", existing) if existing else None
        s.convert_lead(sf, lead_id, account_id=account_id, opportunity_name=t["opportunity_name"])

    @staticmethod
    def _existing_account(sf: Any, t: Any) -> str | None:
        """The account to convert into: ``account_name``, else an account named like the lead's company."""
        if t.get("account_name"):
            return str(t["account_name"])
        lead = first(sf, f"SELECT Company FROM Lead WHERE Name = {soql_str(t['lead_name'])} LIMIT 1")
        company = field(lead, "Company")
        if company and s.record_id(sf, "Account", company):
            return str(company)
        return None

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        t = task.ground_truth
        sf = env.org  # type: ignore[attr-defined]
        lead_id = s.require_id(sf, "Lead", t["lead_name"])
        steps: list[Action] = [*s.open_record(env, "Lead", lead_id), Click(s.button("Convert"))]
        existing = self._existing_account(sf, t)
        if existing:
            steps += [Click('role=radio[name="Choose Existing Account"]'), Fill("label=Account Search", existing)]
        steps += [Fill("label=Opportunity Name", str(t["opportunity_name"])),
                  SelectOption("label=Converted Status", "Closed - Converted"),
                  Click(s.button("Convert")), Done()]
        return steps


TEMPLATES = [CreateLead(), ConvertLead()]
