"""Sales: accounts and their contacts (``create_account_and_contact``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.actions import Action, Done
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from . import _sales as s
from .common import field, first, rows, soql_str, split_name

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task


class CreateAccountAndContact(Template):
    """A new account and its point of contact, with the contact's phone and email.

    Ground truth: ``company_name``, ``contact_name``, ``phone_number`` (any of the contact's phones; digits
    compared), ``email_address``.
    """

    name = "create_account_and_contact"
    objects = ("Account", "Contact")
    milestones = {"account created": 0.25, "contact on the account": 0.35, "contact phone": 0.2,
                  "contact email": 0.2}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        account = first(sf, f"SELECT Id, Name FROM Account WHERE Name = {soql_str(t['company_name'])} LIMIT 1")
        with milestone("account created", 0.25):
            assert account, f"no account named {t['company_name']!r}"
        # every account of that name counts (an agent that saved the account twice still has its contact)
        contacts = rows(sf, "SELECT Id, Name, Email, Phone, MobilePhone, HomePhone, OtherPhone FROM Contact "
                            f"WHERE Account.Name = {soql_str(t['company_name'])}") if account else []
        named = [c for c in contacts if s.same_text(c.get("Name"), t["contact_name"])]
        contact = max(named, key=lambda c: (s.same_text(c.get("Email"), t["email_address"]),
                                            any(s.digits(c.get(k)) == s.digits(t["phone_number"])
                                                for k in ("Phone", "MobilePhone", "HomePhone", "OtherPhone"))),
                      default=None)
        with milestone("contact on the account", 0.35):
            assert account, "no account, so no contact on it"
            assert contact, (f"no contact named {t['contact_name']!r} on {t['company_name']!r} "
                             f"(contacts there: {[c.get('Name') for c in contacts]})")
        phones = [field(contact, k) for k in ("Phone", "MobilePhone", "HomePhone", "OtherPhone")]
        with milestone("contact phone", 0.2):
            assert contact, "no contact to check"
            want = s.digits(t["phone_number"])
            assert want and any(s.digits(p) == want for p in phones), \
                f"none of the contact's phones {[p for p in phones if p]} is {t['phone_number']!r}"
        with milestone("contact email", 0.2):
            assert contact, "no contact to check"
            assert s.same_text(field(contact, "Email"), t["email_address"]), \
                f"email is {field(contact, 'Email')!r}, expected {t['email_address']!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, t = env.org, task.ground_truth  # type: ignore[attr-defined]
        acc = sf.Account.create({"Name": t["company_name"]})
        first_name, last_name = split_name(t["contact_name"])
        sf.Contact.create({"FirstName": first_name, "LastName": last_name, "AccountId": acc["id"],
                           "MobilePhone": t["phone_number"], "Email": t["email_address"]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        t = task.ground_truth
        first_name, last_name = split_name(t["contact_name"])
        contact: dict[str, Any] = {"FirstName": first_name, "LastName": last_name,
                                   "MobilePhone": t["phone_number"], "Email": t["email_address"]}
        return [*s.new_from_list(env, "Account", {"Name": t["company_name"]}),
                *s.new_related(env, "Contact", contact), Done()]


TEMPLATES = [CreateAccountAndContact()]
