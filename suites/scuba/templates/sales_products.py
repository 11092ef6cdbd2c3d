"""Sales, configure-price-quote: products of a product family (``create_product_family_and_products``).

Scored as SCUBA scores it (milestone_evaluator_sales.py): 0.2 when some product is in the family, then for
each of the n products 0.8 / 2n for a product of the name and 0.8 / 2n for its (first) record being in the
family. Descriptions are asked for but not scored (SCUBA does not score them either).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done

from . import shared as s
from .common import field, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def wanted_products(truth: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(name, description)`` of ``product_1_name`` ... ``product_n_name``: n is the number of keys ending in
    ``name`` other than ``product_family_name``, as SCUBA counts them."""
    n = len([k for k in truth if k.endswith("name") and k != "product_family_name"])
    return [(str(truth[f"product_{i}_name"]), str(truth.get(f"product_{i}_description") or ""))
            for i in range(1, n + 1)]


class CreateProductFamilyAndProducts(s.ScubaTemplate):
    """Products in a product family, each with its description.

    Ground truth: ``product_family_name``, ``product_N_name`` and ``product_N_description`` for N = 1..n.
    Product2.Family is an open picklist in the org, so a family outside the listed values is stored as given.
    """

    name = "create_product_family_and_products"
    ground_truth_keys = ("product_1_description", "product_1_name", "product_2_description", "product_2_name",
                         "product_3_description", "product_3_name", "product_4_description", "product_4_name",
                         "product_family_name")
    ground_truth_optional = ("product_2_description", "product_2_name", "product_3_description", "product_3_name",
                             "product_4_description", "product_4_name")
    objects = ("Product2",)

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        products = wanted_products(truth)
        out = {"family has products": 0.2}
        for i, (pname, _) in enumerate(products, 1):
            step = 0.8 / (2 * len(products))
            out[f"product {i} {pname!r} created"] = step
            out[f"product {i} {pname!r} in the family"] = step
        return out

    def check(self, ctx: EvalContext) -> None:
        sf, t = ctx.env.org, ctx.truth
        family = str(t["product_family_name"])
        in_family = s.checked_rows(sf, f"SELECT Id FROM Product2 WHERE Family = {soql_str(family)}")
        with milestone("family has products"):
            assert in_family, f"no product is in the family {family!r}"
        for i, (pname, _) in enumerate(wanted_products(t), 1):
            found = s.checked_rows(sf, f"SELECT Id, Description, Family FROM Product2 WHERE Name = {soql_str(pname)}")
            with milestone(f"product {i} {pname!r} created"):
                assert found, f"no product named {pname!r}"
            with milestone(f"product {i} {pname!r} in the family"):
                assert found, f"no product named {pname!r}"
                assert field(found[0], "Family") == family, \
                    f"{pname!r} is in the family {field(found[0], 'Family')!r}, not {family!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, t = env.org, task.ground_truth  # type: ignore[attr-defined]
        for pname, description in wanted_products(t):
            sf.Product2.create({"Name": pname, "Description": description, "Family": t["product_family_name"],
                                "IsActive": True})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        t = task.ground_truth
        # a new family is a new value of the Family picklist first (Object Manager > Product > Family > New)
        steps: list[Action] = s.picklist_value_steps(env, "Product2", "Family", str(t["product_family_name"]))
        for pname, description in wanted_products(t):
            steps += s.new_from_list(env, "Product2", {"Name": pname, "Description": description,
                                                       "Family": t["product_family_name"], "IsActive": True})
        return [*steps, Done()]


TEMPLATES = [CreateProductFamilyAndProducts()]
