"""Sales, configure-price-quote: price books (``create_price_books``), quotes (``create_quote``), contracts
and orders (``create_contract_and_order``)."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.actions import Action, Done
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from . import _sales as s
from .common import field, first, rows, soql_str

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task

STANDARD_BOOK = "Standard Price Book"


def standard_book_id(sf: Any) -> str | None:
    """The standard price book (by the flag, else by its name)."""
    rec = first(sf, "SELECT Id FROM Pricebook2 WHERE IsStandard = true LIMIT 1") or \
        first(sf, f"SELECT Id FROM Pricebook2 WHERE Name = {soql_str(STANDARD_BOOK)} LIMIT 1")
    return rec["Id"] if rec else None


class CreatePriceBooks(Template):
    """Two new price books, each listing one product at its own price.

    Ground truth: ``product_name``, ``price_book_name1``, ``unit_price1``, ``price_book_name2``, ``unit_price2``.
    """

    name = "create_price_books"
    objects = ("Pricebook2", "PricebookEntry")
    milestones = {"first price book": 0.2, "first price": 0.3, "second price book": 0.2, "second price": 0.3}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        books_in = f"({soql_str(t['price_book_name1'])}, {soql_str(t['price_book_name2'])})"
        books = {" ".join(str(b.get("Name")).split()) for b in rows(sf, f"SELECT Name FROM Pricebook2 WHERE Name IN {books_in}")}
        entries = rows(sf, "SELECT Product2.Name, Pricebook2.Name, UnitPrice FROM PricebookEntry "
                           f"WHERE Pricebook2.Name IN {books_in}")
        for n, which in ((1, "first"), (2, "second")):
            book = t[f"price_book_name{n}"]
            with milestone(f"{which} price book", 0.2):
                assert " ".join(str(book).split()) in books, f"no price book named {book!r}"
            with milestone(f"{which} price", 0.3):
                mine = [e for e in entries if s.same_text(field(e, "Pricebook2.Name"), book)
                        and s.same_text(field(e, "Product2.Name"), t["product_name"])]
                assert mine, f"{t['product_name']!r} is not in price book {book!r}"
                prices = [field(e, "UnitPrice") for e in mine]
                assert any(s.same_number(p, t[f"unit_price{n}"]) for p in prices), \
                    f"{t['product_name']!r} costs {prices} in {book!r}, expected {t[f'unit_price{n}']!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, t = env.org, task.ground_truth  # type: ignore[attr-defined]
        product_id = s.require_id(sf, "Product2", t["product_name"])
        for n in (1, 2):
            book = sf.Pricebook2.create({"Name": t[f"price_book_name{n}"], "IsActive": True})
            sf.PricebookEntry.create({"Pricebook2Id": book["id"], "Product2Id": product_id,
                                      "UnitPrice": t[f"unit_price{n}"], "IsActive": True})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        t = task.ground_truth
        steps: list[Action] = []
        for n in (1, 2):
            steps += [*s.new_from_list(env, "Pricebook2", {"Name": t[f"price_book_name{n}"], "IsActive": True}),
                      *s.new_related(env, "PricebookEntry", {"Product2Id": t["product_name"],
                                                            "UnitPrice": t[f"unit_price{n}"], "IsActive": True})]
        return [*steps, Done()]


class CreateQuote(Template):
    """A quote on an opportunity that expires after a while, with one product line at a discount.

    Ground truth: ``quote_name``, ``opportunity_name``, ``product_name``, ``expiration_duration`` (``"10 days"``,
    ``"tendays"``, a number of days or an ISO date), ``discount_percentage``, ``quantity``. The discount holds
    when the line's Discount is the percentage, or its sales price is the list price less the percentage.
    """

    name = "create_quote"
    objects = ("Quote", "QuoteLineItem")
    milestones = {"quote on the opportunity": 0.3, "expiration date": 0.2, "product line": 0.2, "discount": 0.15,
                  "quantity": 0.15}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        quotes = rows(sf, "SELECT Id, ExpirationDate, Opportunity.Name FROM Quote "
                          f"WHERE Name = {soql_str(t['quote_name'])} ORDER BY CreatedDate DESC")
        quote = next((q for q in quotes if s.same_text(field(q, "Opportunity.Name"), t["opportunity_name"])), None)
        with milestone("quote on the opportunity", 0.3):
            assert quotes, f"no quote named {t['quote_name']!r}"
            assert quote, (f"quote {t['quote_name']!r} is on {[field(q, 'Opportunity.Name') for q in quotes]}, "
                           f"not on {t['opportunity_name']!r}")
        with milestone("expiration date", 0.2):
            assert quote, "no quote to check"
            want = s.date_candidates(t["expiration_duration"])
            assert want, f"cannot read the expected expiration {t['expiration_duration']!r}"
            assert field(quote, "ExpirationDate") in want, \
                f"expires {field(quote, 'ExpirationDate')!r}, expected {' or '.join(sorted(want))}"
        lines = rows(sf, "SELECT Id, Discount, Quantity, UnitPrice, Product2.Name, PricebookEntry.Product2.Name "
                         f"FROM QuoteLineItem WHERE QuoteId = {soql_str(field(quote, 'Id'))}") if quote else []
        mine = [ln for ln in lines if t["product_name"] in (field(ln, "Product2.Name"),
                                                            field(ln, "PricebookEntry.Product2.Name"))]
        with milestone("product line", 0.2):
            assert quote, "no quote, so no line"
            assert mine, f"the quote has no line for {t['product_name']!r} ({len(lines)} lines)"
        list_price = s.standard_price(sf, t["product_name"])
        pct = float(t["discount_percentage"])
        with milestone("discount", 0.15):
            assert mine, "no product line to check"
            ok = [ln for ln in mine if s.same_number(field(ln, "Discount"), pct)
                  or (not field(ln, "Discount") and list_price is not None
                      and s.same_number(field(ln, "UnitPrice"), round(list_price * (1 - pct / 100), 2), tol=0.01))]
            assert ok, (f"discount {[field(ln, 'Discount') for ln in mine]} / sales price "
                        f"{[field(ln, 'UnitPrice') for ln in mine]}: expected {pct:g}% off {list_price}")
        with milestone("quantity", 0.15):
            assert mine, "no product line to check"
            assert any(s.same_number(field(ln, "Quantity"), t["quantity"]) for ln in mine), \
                f"quantity {[field(ln, 'Quantity') for ln in mine]}, expected {t['quantity']!r}"

    @staticmethod
    def _expires(t: Any) -> str:
        d = s.resolve_date(t["expiration_duration"])
        if d is None:
            raise ValueError(f"cannot read the expiration {t['expiration_duration']!r}")
        return d.isoformat()

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, t = env.org, task.ground_truth  # type: ignore[attr-defined]
        opp_id = s.require_id(sf, "Opportunity", t["opportunity_name"])
        book = standard_book_id(sf)
        quote = sf.Quote.create({"Name": t["quote_name"], "OpportunityId": opp_id, "ExpirationDate": self._expires(t),
                                 **({"Pricebook2Id": book} if book else {})})
        entry = first(sf, "SELECT Id, Product2Id, UnitPrice FROM PricebookEntry WHERE Product2.Name = "
                          f"{soql_str(t['product_name'])} AND Pricebook2Id = {soql_str(book)} LIMIT 1")
        if entry is None:
            raise LookupError(f"{t['product_name']!r} has no standard price")
        sf.QuoteLineItem.create({"QuoteId": quote["id"], "PricebookEntryId": entry["Id"],
                                 "Product2Id": entry["Product2Id"], "Quantity": t["quantity"],
                                 "UnitPrice": entry["UnitPrice"], "Discount": t["discount_percentage"]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        t = task.ground_truth
        sf = env.org  # type: ignore[attr-defined]
        opp_id = s.require_id(sf, "Opportunity", t["opportunity_name"])
        list_price = s.standard_price(sf, t["product_name"])
        line = {"Product2Id": t["product_name"], "Quantity": t["quantity"], "UnitPrice": list_price,
                "Discount": t["discount_percentage"]}
        return [*s.open_record(env, "Opportunity", opp_id),
                *s.new_related(env, "Quote", {"Name": t["quote_name"], "ExpirationDate": self._expires(t)}),
                *s.new_related(env, "QuoteLineItem", line), Done()]


class CreateContractAndOrder(Template):
    """A contract for an account (start date, term in months), then an order from it.

    Ground truth: ``account_name``, ``start_date`` (ISO date, ``"today"``, ``"N days from today"``),
    ``contract_term_months``, ``order_start_date`` (ISO date, or relative to the contract's start:
    ``"next friday"`` is the first Friday after it, ``"7 days"`` a week after it).
    """

    name = "create_contract_and_order"
    objects = ("Contract", "Order")
    milestones = {"contract for the account": 0.3, "contract start date": 0.2, "contract term": 0.2,
                  "order from the contract": 0.15, "order start date": 0.15}

    @staticmethod
    def _order_dates(t: Any) -> set[str]:
        out: set[str] = set()
        for start in s.date_candidates(t["start_date"]):
            d = s.resolve_date(t["order_start_date"], base=_dt.date.fromisoformat(start))
            if d is not None:
                out.add(d.isoformat())
        return out

    def evaluate(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        contracts = rows(sf, "SELECT Id, StartDate, ContractTerm FROM Contract "
                             f"WHERE Account.Name = {soql_str(t['account_name'])} ORDER BY CreatedDate DESC")
        starts = s.date_candidates(t["start_date"])
        ids = ", ".join(soql_str(c["Id"]) for c in contracts)
        orders = rows(sf, f"SELECT Id, ContractId, EffectiveDate FROM Order WHERE ContractId IN ({ids})") if ids else []
        with_orders = {o.get("ContractId") for o in orders}

        def fit(c: dict[str, Any]) -> tuple[bool, bool, bool]:
            return (c.get("StartDate") in starts, s.same_number(c.get("ContractTerm"), t["contract_term_months"]),
                    c.get("Id") in with_orders)

        contract = max(contracts, key=fit, default=None)  # the newest of the best fitting
        with milestone("contract for the account", 0.3):
            assert contract, f"no contract for account {t['account_name']!r}"
        with milestone("contract start date", 0.2):
            assert contract, "no contract to check"
            assert starts, f"cannot read the expected start date {t['start_date']!r}"
            assert field(contract, "StartDate") in starts, \
                f"contract starts {field(contract, 'StartDate')!r}, expected {' or '.join(sorted(starts))}"
        with milestone("contract term", 0.2):
            assert contract, "no contract to check"
            assert s.same_number(field(contract, "ContractTerm"), t["contract_term_months"]), \
                f"term is {field(contract, 'ContractTerm')!r} months, expected {t['contract_term_months']!r}"
        mine = [o for o in orders if o.get("ContractId") == field(contract, "Id")]
        with milestone("order from the contract", 0.15):
            assert contract, "no contract, so no order from it"
            assert mine, "no order was created from the contract"
        with milestone("order start date", 0.15):
            assert mine, "no order to check"
            want = self._order_dates(t)
            assert want, f"cannot read the expected order start {t['order_start_date']!r}"
            got = [o.get("EffectiveDate") for o in mine]
            assert any(g in want for g in got), f"order starts {got}, expected {' or '.join(sorted(want))}"

    @staticmethod
    def _dates(t: Any) -> tuple[str, str]:
        start = s.resolve_date(t["start_date"])
        if start is None:
            raise ValueError(f"cannot read the start date {t['start_date']!r}")
        order = s.resolve_date(t["order_start_date"], base=start)
        if order is None:
            raise ValueError(f"cannot read the order start date {t['order_start_date']!r}")
        return start.isoformat(), order.isoformat()

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, t = env.org, task.ground_truth  # type: ignore[attr-defined]
        account_id = s.require_id(sf, "Account", t["account_name"])
        start, order_start = self._dates(t)
        contract = sf.Contract.create({"AccountId": account_id, "StartDate": start, "Status": "Draft",
                                       "ContractTerm": int(t["contract_term_months"])})
        sf.Order.create({"AccountId": account_id, "ContractId": contract["id"], "EffectiveDate": order_start,
                         "Status": "Draft"})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        t = task.ground_truth
        start, order_start = self._dates(t)
        contract = {"AccountId": t["account_name"], "StartDate": start, "ContractTerm": int(t["contract_term_months"])}
        order = {"AccountId": t["account_name"], "EffectiveDate": order_start}
        return [*s.new_from_list(env, "Contract", contract), *s.new_related(env, "Order", order), Done()]


TEMPLATES = [CreatePriceBooks(), CreateQuote(), CreateContractAndOrder()]
