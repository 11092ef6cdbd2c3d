"""Admin persona, validation: a validation rule on an object.

SCUBA's ``create_validation_rule``: ground truth ``object_name``, ``error_condition_formula`` and
``error_message``, read the way SCUBA's scorer reads them: a Tooling API query of ValidationRule by
EntityDefinitionId, with the formula in ``Metadata.errorConditionFormula``. Formulas are compared after
normalisation (white space, letter case outside string literals, ``!=`` / ``<>``, outer parentheses).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.actions import Action, Check, Done, Fill
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from ._service_admin import click_link, click_button, normalize_formula, object_api_name, same_text, tooling_rows
from .common import goto, soql_str

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task


def rule_name(message: str) -> str:
    """A rule API name from its message: the first words, joined by underscores (at most 40 characters)."""
    words = ["".join(ch for ch in w if ch.isalnum()) for w in message.split()]
    name = "_".join(w for w in words if w)[:40].strip("_")
    return name if name and name[0].isalpha() else f"Rule_{name}"[:40]


def _formula(rule: dict[str, Any]) -> Any:
    meta = rule.get("Metadata") or {}
    return meta.get("errorConditionFormula") if isinstance(meta, dict) else None


class CreateValidationRule(Template):
    """An active validation rule with the given condition and error message."""

    name = "create_validation_rule"
    objects = ("ValidationRule",)
    milestones = {"active rule on the object": 0.2, "error condition formula": 0.4, "error message": 0.4}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        obj = str(truth.get("object_name", ""))
        api = object_api_name(sf, obj) or obj
        rules = tooling_rows(sf, f"SELECT Id, ValidationName, Active, ErrorMessage, Metadata, EntityDefinitionId "
                                 f"FROM ValidationRule WHERE EntityDefinitionId = {soql_str(api)}")
        want_formula = normalize_formula(truth.get("error_condition_formula"))
        by_formula = [r for r in rules if normalize_formula(_formula(r)) == want_formula]
        by_message = [r for r in rules if same_text(r.get("ErrorMessage"), truth.get("error_message"))]
        rule = (by_formula or by_message or rules or [None])[-1]
        with milestone("active rule on the object", 0.2):
            assert rules, f"no validation rule on {obj!r}"
            assert rule is not None and rule.get("Active"), f"rule {rule.get('ValidationName')!r} is not active"
        with milestone("error condition formula", 0.4):
            assert rules, f"no validation rule on {obj!r}"
            assert by_formula, (f"no rule on {obj!r} has the formula {truth.get('error_condition_formula')!r} "
                                f"(found: {[_formula(r) for r in rules]})")
        with milestone("error message", 0.4):
            assert rules, f"no validation rule on {obj!r}"
            assert rule is not None and same_text(rule.get("ErrorMessage"), truth.get("error_message")), (
                f"error message is {rule.get('ErrorMessage') if rule else None!r}, "
                f"expected {truth.get('error_message')!r}")

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj = object_api_name(sf, str(truth["object_name"])) or str(truth["object_name"])
        sf.toolingexecute("sobjects/ValidationRule", method="POST", data={
            "ValidationName": rule_name(str(truth["error_message"])), "EntityDefinitionId": obj, "Active": True,
            "ErrorConditionFormula": truth["error_condition_formula"], "ErrorMessage": truth["error_message"]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj = object_api_name(sf, str(truth["object_name"])) or str(truth["object_name"])
        label = sf.restful(f"sobjects/{obj}/describe").get("label", obj)
        return [goto(env, "/lightning/setup/SetupOneHome/home"), click_link("Object Manager"), click_link(label),
                click_link("Validation Rules"), click_button("New"),
                Fill("label=Rule Name", rule_name(str(truth["error_message"]))),
                Fill("label=Error Condition Formula", str(truth["error_condition_formula"])),
                Fill("label=Error Message", str(truth["error_message"])), Check("label=Active"),
                click_button("Save"), Done()]


TEMPLATES = [CreateValidationRule()]
