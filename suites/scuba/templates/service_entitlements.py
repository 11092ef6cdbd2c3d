"""Service persona, entitlements: an entitlement for an account with a support type and relative dates.

SCUBA's ``create_entitlement_record``, scored as SCUBA scores it (milestone_evaluator_service.py): ground truth
``account_name``, ``entitlement_name``, ``support_type``, ``start_date_relative`` and ``end_date_relative``
("1 week", "18 months", "1 year 30 days", an ISO date: both from today, exact). The first entitlement of the
name on the account: exists 0.4, type 0.3, both dates 0.3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done, Fill, SelectOption

from . import shared as s
from .common import first, goto, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def _dates(truth: Any) -> tuple[str, str]:
    """The expected start and end dates, both counted from today as SCUBA counts them."""
    return (s.relative_date(truth.get("start_date_relative")).isoformat(),
            s.relative_date(truth.get("end_date_relative")).isoformat())


class CreateEntitlement(s.ScubaTemplate):
    """An entitlement on an account."""

    name = "create_entitlement_record"
    ground_truth_keys = ("account_name", "end_date_relative", "entitlement_name", "start_date_relative",
                         "support_type")
    objects = ("Entitlement",)
    milestones = {"entitlement exists": 0.4, "support type": 0.3, "start and end dates": 0.3}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        name, account = str(truth.get("entitlement_name", "")), str(truth.get("account_name", ""))
        found = s.checked_rows(sf, f"SELECT Id, Type, StartDate, EndDate FROM Entitlement "
                                   f"WHERE Name = {soql_str(name)} AND Account.Name = {soql_str(account)}")
        ent = found[0] if found else None
        missing = f"no entitlement {name!r} on account {account!r}"
        with milestone("entitlement exists"):
            assert ent is not None, missing
        with milestone("support type"):
            assert ent is not None, missing
            assert ent.get("Type") == truth.get("support_type"), (
                f"type is {ent.get('Type')!r}, expected {truth.get('support_type')!r}")
        with milestone("start and end dates"):
            assert ent is not None, missing
            start, end = _dates(truth)
            assert (ent.get("StartDate"), ent.get("EndDate")) == (start, end), (
                f"runs {ent.get('StartDate')!r} to {ent.get('EndDate')!r}, expected {start} to {end} "
                f"({truth.get('start_date_relative')!r}, {truth.get('end_date_relative')!r} from today)")

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        account = first(sf, f"SELECT Id FROM Account WHERE Name = {soql_str(truth['account_name'])}")
        assert account is not None, f"seed has no account {truth['account_name']!r}"
        start, end = _dates(truth)
        sf.Entitlement.create({"Name": truth["entitlement_name"], "AccountId": account["Id"],
                               "Type": truth["support_type"], "StartDate": start, "EndDate": end})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        start, end = _dates(truth)
        return [goto(env, "/lightning/o/Entitlement/list"), s.click_button("New"),
                Fill("label=Entitlement Name", str(truth["entitlement_name"])),
                Fill("label=Account Name", str(truth["account_name"])),
                SelectOption("label=Type", str(truth["support_type"])),
                Fill("label=Start Date", s.ui_date(start)), Fill("label=End Date", s.ui_date(end)),
                s.click_button("Save"), Done()]


TEMPLATES = [CreateEntitlement()]
