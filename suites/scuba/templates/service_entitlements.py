"""Service persona, entitlements: an entitlement for an account with a support type and relative dates.

SCUBA's ``create_entitlement_record``: ground truth ``account_name``, ``entitlement_name``, ``support_type``,
``start_date_relative`` and ``end_date_relative`` ("today", "1 week", "6 months", "1 year": from today).
The end date also counts when measured from the start date (both readings of "starts in a week and expires
in a year" are accepted), with one day of slack for a task that runs over midnight.
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.actions import Action, Done, Fill, SelectOption
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from ._service_admin import checked_rows, click_button, close_dates, norm, relative_date
from .common import first, goto, soql_str

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task


def _dates(truth: Any) -> tuple[_dt.date | None, list[_dt.date | None]]:
    start = relative_date(truth.get("start_date_relative"))
    end_from_today = relative_date(truth.get("end_date_relative"))
    end_from_start = relative_date(truth.get("end_date_relative"), base=start) if start else None
    return start, [end_from_today, end_from_start]


class CreateEntitlement(Template):
    """An entitlement on an account."""

    name = "create_entitlement_record"
    objects = ("Entitlement",)
    milestones = {"entitlement exists": 0.25, "support type": 0.25, "start date": 0.25, "end date": 0.25}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        name, account = str(truth.get("entitlement_name", "")), str(truth.get("account_name", ""))
        ent: dict[str, Any] | None = None
        with milestone("entitlement exists", 0.25):
            found = checked_rows(sf, f"SELECT Id, Type, StartDate, EndDate FROM Entitlement "
                                     f"WHERE Name = {soql_str(name)} AND Account.Name = {soql_str(account)}")
            assert found, f"no entitlement {name!r} on account {account!r}"
            ent = found[-1]
        missing = f"no entitlement {name!r} on account {account!r}"
        start, ends = _dates(truth)
        with milestone("support type", 0.25):
            assert ent is not None, missing
            assert norm(ent.get("Type")) == norm(truth.get("support_type")), (
                f"type is {ent.get('Type')!r}, expected {truth.get('support_type')!r}")
        with milestone("start date", 0.25):
            assert ent is not None, missing
            assert close_dates(ent.get("StartDate"), [start]), (
                f"start date is {ent.get('StartDate')!r}, expected {start} ({truth.get('start_date_relative')!r})")
        with milestone("end date", 0.25):
            assert ent is not None, missing
            assert close_dates(ent.get("EndDate"), ends), (
                f"end date is {ent.get('EndDate')!r}, expected {ends[0]} ({truth.get('end_date_relative')!r})")

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        account = first(sf, f"SELECT Id FROM Account WHERE Name = {soql_str(truth['account_name'])}")
        assert account is not None, f"seed has no account {truth['account_name']!r}"
        start, ends = _dates(truth)
        sf.Entitlement.create({"Name": truth["entitlement_name"], "AccountId": account["Id"],
                               "Type": truth["support_type"], "StartDate": start.isoformat() if start else None,
                               "EndDate": ends[0].isoformat() if ends[0] else None})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        start, ends = _dates(truth)
        return [goto(env, "/lightning/o/Entitlement/list"), click_button("New"),
                Fill("label=Name", str(truth["entitlement_name"])),
                Fill("label=Account", str(truth["account_name"])),
                SelectOption("label=Type", str(truth["support_type"])),
                Fill("label=Start Date", start.isoformat() if start else ""),
                Fill("label=End Date", ends[0].isoformat() if ends[0] else ""),
                click_button("Save"), Done()]


TEMPLATES = [CreateEntitlement()]
