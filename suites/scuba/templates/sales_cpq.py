"""Sales, configure-price-quote: price books (``create_price_books``), quotes (``create_quote``), contracts
and orders (``create_contract_and_order``), scored as SCUBA scores them (milestone_evaluator_sales.py): the
first record of SCUBA's queries, exact values, dates from today as SCUBA computes them (``shared.relative_date``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Check, Done, Fill, SelectOption

from . import shared as s
from .common import field, first, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task

STANDARD_BOOK = "Standard Price Book"


def standard_book_id(sf: Any) -> str | None:
    """The standard price book (by the flag, else by its name)."""
    rec = first(sf, "SELECT Id FROM Pricebook2 WHERE IsStandard = true LIMIT 1") or \
        first(sf, f"SELECT Id FROM Pricebook2 WHERE Name = {soql_str(STANDARD_BOOK)} LIMIT 1")
    return rec["Id"] if rec else None


class CreatePriceBooks(s.ScubaTemplate):
    """Two new price books, each listing one product at its own price.

    Ground truth: ``product_name``, ``price_book_name1``, ``unit_price1``, ``price_book_name2``, ``unit_price2``.
    Each book's entry is the last one the query returns for it (SCUBA keys the entries by book name).
    """

    name = "create_price_books"
    ground_truth_keys = ("price_book_name1", "price_book_name2", "product_name", "unit_price1", "unit_price2")
    objects = ("Pricebook2", "PricebookEntry")
    milestones = {"price book 1 created": 0.1, "price book 2 created": 0.1, "product in price book 1": 0.2,
                  "product in price book 2": 0.2, "unit price in price book 1": 0.2, "unit price in price book 2": 0.2}

    def check(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        books_in = f"({soql_str(t['price_book_name1'])}, {soql_str(t['price_book_name2'])})"
        books = [b.get("Name") for b in s.checked_rows(sf, f"SELECT Name FROM Pricebook2 WHERE Name IN {books_in}")]
        entries = {field(e, "Pricebook2.Name"): e for e in s.checked_rows(
            sf, f"SELECT Product2.Name, Pricebook2.Name, UnitPrice FROM PricebookEntry WHERE Pricebook2.Name IN {books_in}")}
        for n in (1, 2):
            book = t[f"price_book_name{n}"]
            with milestone(f"price book {n} created"):
                assert book in books, f"no price book named {book!r}"
        for n in (1, 2):
            book = t[f"price_book_name{n}"]
            with milestone(f"product in price book {n}"):
                got = field(entries.get(book), "Product2.Name")
                assert got == t["product_name"], f"price book {book!r} lists {got!r}, expected {t['product_name']!r}"
        for n in (1, 2):
            book = t[f"price_book_name{n}"]
            with milestone(f"unit price in price book {n}"):
                got = field(entries.get(book), "UnitPrice")
                assert s.same_number(got, t[f"unit_price{n}"]), \
                    f"the unit price in {book!r} is {got!r}, expected {t[f'unit_price{n}']!r}"

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
            # the new price book's Related tab > Add Products > the product > Next > List Price > Save
            steps += [*s.new_from_list(env, "Pricebook2", {"Name": t[f"price_book_name{n}"], "IsActive": True}),
                      s.click_tab("Related"), s.click_button("Add Products"),
                      Check(f'label={t["product_name"]}'), s.click_button("Next"),
                      Fill("label=List Price", s.ui_text(t[f"unit_price{n}"])), *s.save()]
        return [*steps, Done()]


class CreateQuote(s.ScubaTemplate):
    """A quote on an opportunity that expires after a while, with one product line at a discount.

    Ground truth: ``quote_name``, ``opportunity_name``, ``product_name``, ``expiration_duration`` (SCUBA's
    ``fivedays`` ... ``onemonth``, or any relative date), ``discount_percentage`` (the line's Discount),
    ``quantity``.
    """

    name = "create_quote"
    ground_truth_keys = ("discount_percentage", "expiration_duration", "opportunity_name", "product_name", "quantity",
                         "quote_name")
    objects = ("Quote", "QuoteLineItem")
    milestones = {"quote created": 0.2, "expiration date": 0.2, "quote on the opportunity": 0.2,
                  "product line": 0.2, "discount": 0.1, "quantity": 0.1}

    def check(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        quotes = s.checked_rows(sf, "SELECT Id, ExpirationDate, Opportunity.Name FROM Quote "
                                    f"WHERE Name = {soql_str(t['quote_name'])}")
        lines = s.checked_rows(sf, "SELECT Discount, Product2.Name, Quantity FROM QuoteLineItem "
                                   f"WHERE Quote.Name = {soql_str(t['quote_name'])}")
        quote, line = (quotes or [None])[0], (lines or [None])[0]
        with milestone("quote created"):
            assert quote, f"no quote named {t['quote_name']!r}"
        with milestone("expiration date"):
            assert quote, "no quote to check"
            want = self._expires(t)
            assert field(quote, "ExpirationDate") == want, f"expires {field(quote, 'ExpirationDate')!r}, expected {want}"
        with milestone("quote on the opportunity"):
            assert quote, "no quote to check"
            assert field(quote, "Opportunity.Name") == t["opportunity_name"], \
                f"the quote is on {field(quote, 'Opportunity.Name')!r}, expected {t['opportunity_name']!r}"
        with milestone("product line"):
            assert line, f"quote {t['quote_name']!r} has no line"
            assert field(line, "Product2.Name") == t["product_name"], \
                f"the line is for {field(line, 'Product2.Name')!r}, expected {t['product_name']!r}"
        for title, fname, key in (("discount", "Discount", "discount_percentage"), ("quantity", "Quantity", "quantity")):
            with milestone(title):
                assert line, "no line to check"
                assert s.same_number(field(line, fname), t[key]), f"{fname} is {field(line, fname)!r}, expected {t[key]!r}"

    @staticmethod
    def _expires(t: Any) -> str:
        return s.relative_date(t["expiration_duration"]).isoformat()

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
        book = first(sf, f"SELECT Name FROM Pricebook2 WHERE Id = {soql_str(standard_book_id(sf))}")
        # the new quote's Add Products: its price book first, then the product, Next, quantity and discount
        return [*s.open_record(env, "Opportunity", opp_id),
                *s.new_related(env, "Quote", {"Name": t["quote_name"], "ExpirationDate": self._expires(t)}),
                s.click_button("Add Products"), SelectOption("label=Price Book", str((book or {}).get("Name"))),
                *s.save(), Check(f'label={t["product_name"]}'), s.click_button("Next"),
                Fill("label=Quantity", s.ui_text(t["quantity"])),
                Fill("label=Discount", s.ui_text(t["discount_percentage"])), *s.save(), Done()]


class CreateContractAndOrder(s.ScubaTemplate):
    """A contract for an account (start date, term in months), then an order from it.

    Ground truth: ``account_name``, ``start_date`` (from today: ``"today"``, ``"1 week"``, ``"1 month"``, an ISO
    date), ``contract_term_months``, ``order_start_date`` (from the contract's expected start: ``"next friday"``
    is the first Friday after it, ``"2 weeks"`` two weeks after it).
    """

    name = "create_contract_and_order"
    ground_truth_keys = ("account_name", "contract_term_months", "order_start_date", "start_date")
    objects = ("Contract", "Order")
    milestones = {"contract for the account": 0.2, "contract start date": 0.2, "contract term": 0.2,
                  "order from the contract": 0.2, "order start date": 0.2}

    def check(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        contracts = s.checked_rows(sf, "SELECT Id, StartDate, ContractTerm FROM Contract "
                                       f"WHERE Account.Name = {soql_str(t['account_name'])}")
        contract = contracts[0] if contracts else None
        orders = s.checked_rows(sf, f"SELECT Id, EffectiveDate FROM Order WHERE ContractId = {soql_str(contract['Id'])}") \
            if contract else []
        order = orders[0] if orders else None
        with milestone("contract for the account"):
            assert contract, f"no contract for account {t['account_name']!r}"
        with milestone("contract start date"):
            assert contract, "no contract to check"
            start = s.relative_date(t["start_date"]).isoformat()
            assert field(contract, "StartDate") == start, f"the contract starts {field(contract, 'StartDate')!r}, expected {start}"
        with milestone("contract term"):
            assert contract, "no contract to check"
            assert s.same_number(field(contract, "ContractTerm"), t["contract_term_months"]), \
                f"the term is {field(contract, 'ContractTerm')!r} months, expected {t['contract_term_months']!r}"
        with milestone("order from the contract"):
            assert order, "no order was created from the contract"
        with milestone("order start date"):
            assert order, "no order to check"
            order_start = self._dates(t)[1]
            assert field(order, "EffectiveDate") == order_start, \
                f"the order starts {field(order, 'EffectiveDate')!r}, expected {order_start}"

    @staticmethod
    def _dates(t: Any) -> tuple[str, str]:
        start = s.relative_date(t["start_date"])
        return start.isoformat(), s.relative_date(t["order_start_date"], start).isoformat()

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
