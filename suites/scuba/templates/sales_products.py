"""Sales, configure-price-quote: products of a product family (``create_product_family_and_products``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.actions import Action, Done
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from . import _sales as s
from .common import field, rows, soql_str

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task

MAX_PRODUCTS = 4


def wanted_products(truth: Any) -> list[tuple[str, str]]:
    """``(name, description)`` of ``product_1_name`` ... ``product_4_name`` in the ground truth."""
    out = []
    for n in range(1, MAX_PRODUCTS + 1):
        name = truth.get(f"product_{n}_name")
        if name:
            out.append((str(name), str(truth.get(f"product_{n}_description") or "")))
    return out


class CreateProductFamilyAndProducts(Template):
    """Products (two to four) in a product family, each with its description.

    Ground truth: ``product_family_name``, ``product_N_name`` and ``product_N_description`` for N = 1..4.
    Product2.Family is an open picklist in the org, so a family outside the listed values is stored as given.
    """

    name = "create_product_family_and_products"
    objects = ("Product2",)
    milestones = {"family has products": 0.2, "products created": 0.4, "products in the family": 0.2,
                  "descriptions": 0.2}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        family = str(t["product_family_name"])
        wanted = wanted_products(t)
        in_family = rows(sf, f"SELECT Id FROM Product2 WHERE Family = {soql_str(family)}")
        found: dict[str, list[dict[str, Any]]] = {}
        for name, _ in wanted:
            found[name] = rows(sf, f"SELECT Id, Description, Family FROM Product2 WHERE Name = {soql_str(name)}")
        with milestone("family has products", 0.2):
            assert in_family, f"no product is in the family {family!r}"
        with milestone("products created", 0.4):
            assert wanted, "the ground truth names no product"
            missing = [n for n, _ in wanted if not found[n]]
            assert not missing, f"no product named {missing}"
        with milestone("products in the family", 0.2):
            outside = {n: [field(r, "Family") for r in found[n]] for n, _ in wanted
                       if not any(s.same_text(field(r, "Family"), family) for r in found[n])}
            assert not outside, f"not in the family {family!r}: {outside}"
        with milestone("descriptions", 0.2):
            wrong = {n: [field(r, "Description") for r in found[n]] for n, d in wanted
                     if not any(s.same_text(field(r, "Description"), d) for r in found[n])}
            assert not wrong, f"descriptions differ: {wrong}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, t = env.org, task.ground_truth  # type: ignore[attr-defined]
        for name, description in wanted_products(t):
            sf.Product2.create({"Name": name, "Description": description, "Family": t["product_family_name"],
                                "IsActive": True})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        t = task.ground_truth
        steps: list[Action] = []
        for name, description in wanted_products(t):
            steps += s.new_from_list(env, "Product2", {"Name": name, "Description": description,
                                                       "Family": t["product_family_name"], "IsActive": True})
        return [*steps, Done()]


TEMPLATES = [CreateProductFamilyAndProducts()]
