"""Sales: accounts and their contacts (``create_account_and_contact``).

Scored as SCUBA scores it (milestone_evaluator_sales.py, create_account_and_contact): the first account of the
name, the first contact on it; exact name, email and phone (any of Phone, MobilePhone, HomePhone); the email
and phone milestones exist only when the ground truth gives them, the contact milestones then weigh 0.3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done

from . import shared as s
from .common import field, soql_str, split_name

if TYPE_CHECKING:
    from pytest_cua import Environment, Task

PHONES = ("Phone", "MobilePhone", "HomePhone")


class CreateAccountAndContact(s.ScubaTemplate):
    """A new account and its point of contact, with the contact's phone and email.

    Ground truth: ``company_name``, ``contact_name``, ``phone_number`` and ``email_address`` (either may be
    empty: that milestone is then left out).
    """

    name = "create_account_and_contact"
    ground_truth_keys = ("company_name", "contact_name", "email_address", "phone_number")
    objects = ("Account", "Contact")

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        step = 0.2 if truth.get("phone_number") and truth.get("email_address") else 0.3
        out = {"account created": 0.2, "contact on the account": step, "contact name": step}
        if truth.get("email_address"):
            out["contact email"] = 0.2
        if truth.get("phone_number"):
            out["contact phone"] = 0.2
        return out

    def check(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        accounts = s.checked_rows(sf, f"SELECT Id, Name FROM Account WHERE Name = {soql_str(t['company_name'])}")
        with milestone("account created"):
            assert accounts, f"no account named {t['company_name']!r}"
        contacts = s.checked_rows(sf, "SELECT Id, AccountId, Name, Email, Phone, MobilePhone, HomePhone FROM Contact "
                                      f"WHERE AccountId = {soql_str(accounts[0]['Id'])}") if accounts else []
        contact = contacts[0] if contacts else None
        with milestone("contact on the account"):
            assert accounts, "no account, so no contact on it"
            assert contact, f"account {t['company_name']!r} has no contact"
        with milestone("contact name"):
            assert contact, "no contact to check"
            assert field(contact, "Name") == t["contact_name"], \
                f"the contact is {field(contact, 'Name')!r}, expected {t['contact_name']!r}"
        if t.get("email_address"):
            with milestone("contact email"):
                assert contact, "no contact to check"
                assert field(contact, "Email") == t["email_address"], \
                    f"email is {field(contact, 'Email')!r}, expected {t['email_address']!r}"
        if t.get("phone_number"):
            with milestone("contact phone"):
                assert contact, "no contact to check"
                phones = [field(contact, k) for k in PHONES]
                assert t["phone_number"] in phones, \
                    f"none of the contact's phones {[p for p in phones if p]} is {t['phone_number']!r}"

    @staticmethod
    def _contact(t: Any) -> dict[str, Any]:
        first_name, last_name = split_name(t["contact_name"])
        values = {"FirstName": first_name, "LastName": last_name, "MobilePhone": t.get("phone_number"),
                  "Email": t.get("email_address")}
        return {k: v for k, v in values.items() if v}

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, t = env.org, task.ground_truth  # type: ignore[attr-defined]
        # SCUBA reads the contacts of the first account of the name: one the seed holds already is that account
        existing = s.checked_rows(sf, f"SELECT Id FROM Account WHERE Name = {soql_str(t['company_name'])}")
        account_id = existing[0]["Id"] if existing else sf.Account.create({"Name": t["company_name"]})["id"]
        sf.Contact.create({**self._contact(t), "AccountId": account_id})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        t = task.ground_truth
        existing = s.record_id(env.org, "Account", t["company_name"])  # type: ignore[attr-defined]
        account = s.open_record(env, "Account", existing) if existing else \
            s.new_from_list(env, "Account", {"Name": t["company_name"]})
        return [*account, *s.new_related(env, "Contact", self._contact(t)), Done()]


TEMPLATES = [CreateAccountAndContact()]
