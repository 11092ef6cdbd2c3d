"""Admin persona, validation: a validation rule on an object.

SCUBA's ``create_validation_rule``: ground truth ``object_name``, ``error_condition_formula`` and
``error_message``, read the way SCUBA's scorer reads them: a Tooling API query of ValidationRule by
EntityDefinitionId, with the formula in ``Metadata.errorConditionFormula``. The first rule on the object:
exists 0.2, its formula exactly the ground truth's 0.5, its error message exactly 0.3 (active or not, as
SCUBA scores it in milestone_evaluator_admin_new.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Check, Done, Fill

from . import shared as s
from .common import goto, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def rule_name(message: str) -> str:
    """A rule API name from its message: the first words, joined by underscores (at most 40 characters)."""
    words = ["".join(ch for ch in w if ch.isalnum()) for w in message.split()]
    name = "_".join(w for w in words if w)[:40].strip("_")
    return name if name and name[0].isalpha() else f"Rule_{name}"[:40]


def _formula(rule: dict[str, Any]) -> Any:
    meta = rule.get("Metadata") or {}
    return meta.get("errorConditionFormula") if isinstance(meta, dict) else None


class CreateValidationRule(s.ScubaTemplate):
    """A validation rule with the given condition and error message."""

    name = "create_validation_rule"
    ground_truth_keys = ("error_condition_formula", "error_message", "object_name")
    objects = ("ValidationRule",)
    milestones = {"rule on the object": 0.2, "error condition formula": 0.5, "error message": 0.3}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        obj = str(truth.get("object_name", ""))
        api = s.object_api_name(sf, obj) or obj
        rules = s.tooling_rows(sf, f"SELECT ErrorMessage, Metadata, EntityDefinitionId, ValidationName "
                                   f"FROM ValidationRule WHERE EntityDefinitionId = {soql_str(api)}")
        rule = rules[0] if rules else None
        with milestone("rule on the object"):
            assert rule is not None, f"no validation rule on {obj!r}"
        with milestone("error condition formula"):
            assert rule is not None, f"no validation rule on {obj!r}"
            assert _formula(rule) == truth.get("error_condition_formula"), (
                f"the formula is {_formula(rule)!r}, expected {truth.get('error_condition_formula')!r}")
        with milestone("error message"):
            assert rule is not None, f"no validation rule on {obj!r}"
            assert rule.get("ErrorMessage") == truth.get("error_message"), (
                f"the error message is {rule.get('ErrorMessage')!r}, expected {truth.get('error_message')!r}")

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj = s.object_api_name(sf, str(truth["object_name"])) or str(truth["object_name"])
        sf.toolingexecute("sobjects/ValidationRule", method="POST", data={
            "ValidationName": rule_name(str(truth["error_message"])), "EntityDefinitionId": obj, "Active": True,
            "ErrorConditionFormula": truth["error_condition_formula"], "ErrorMessage": truth["error_message"]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj = s.object_api_name(sf, str(truth["object_name"])) or str(truth["object_name"])
        label = sf.restful(f"sobjects/{obj}/describe").get("label", obj)
        return [goto(env, "/lightning/setup/SetupOneHome/home"), s.click_link("Object Manager"), s.click_link(label),
                s.click_link("Validation Rules"), s.click_button("New"),
                Fill("label=Rule Name", rule_name(str(truth["error_message"]))),
                Fill("label=Error Condition Formula", str(truth["error_condition_formula"])),
                Fill("label=Error Message", str(truth["error_message"])), Check("label=Active"),
                s.click_button("Check Syntax"), s.click_button("Save"), Done()]


TEMPLATES = [CreateValidationRule()]
