"""Admin persona, sharing: organization-wide defaults of an object.

SCUBA's ``create_owd_settings``: ground truth ``object_name`` (API name or label), ``internal_visibility`` and
``external_visibility`` as Setup shows them ("Private", "Public Read Only", "Public Read/Write", ...). The
embedded org keeps the defaults on EntityDefinition (``InternalSharingModel`` / ``ExternalSharingModel``),
read through the Tooling API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done, SelectOption

from . import shared as s
from .common import soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def _definition(sf: Any, object_name: str) -> dict[str, Any] | None:
    api = s.object_api_name(sf, object_name) or object_name
    found = s.tooling_rows(sf, f"SELECT Id, QualifiedApiName, Label, InternalSharingModel, ExternalSharingModel "
                             f"FROM EntityDefinition WHERE QualifiedApiName = {soql_str(api)}")
    return found[0] if found else None


class OrgWideDefaults(s.ScubaTemplate):
    """Default internal and external access of one object."""

    name = "create_owd_settings"
    ground_truth_keys = ("external_visibility", "internal_visibility", "object_name")
    objects = ("EntityDefinition",)
    milestones = {"default internal access": 0.5, "default external access": 0.5}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        name = str(truth.get("object_name", ""))
        definition = _definition(sf, name)
        if s.exact():  # SCUBA reads [0] of the retrieved objects: IndexError without the object
            s.crash_unless(definition is not None, f"no object {name!r} (SCUBA: IndexError)")
        for side, key, field_name in (("internal", "internal_visibility", "InternalSharingModel"),
                                      ("external", "external_visibility", "ExternalSharingModel")):
            with milestone(f"default {side} access"):
                assert definition is not None, f"no object {name!r}"
                want, got = s.sharing_model(truth.get(key)), definition.get(field_name)
                assert got == want, (f"{name} default {side} access is {s.sharing_label(str(got))!r}, "
                                     f"expected {truth.get(key)!r}")

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        definition = _definition(sf, str(truth["object_name"]))
        assert definition is not None, f"no object {truth['object_name']!r}"
        sf.EntityDefinition.update(definition["Id"], {
            "InternalSharingModel": s.sharing_model(truth["internal_visibility"]),
            "ExternalSharingModel": s.sharing_model(truth["external_visibility"])})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        definition = _definition(sf, str(truth["object_name"]))
        label = str((definition or {}).get("Label") or truth["object_name"])
        internal = s.sharing_label(s.sharing_model(truth["internal_visibility"]))
        external = s.sharing_label(s.sharing_model(truth["external_visibility"]))
        return [*s.setup_link(env, "Sharing Settings"), s.click_button("Edit"),
                SelectOption(f"label={label} Default Internal Access", internal),
                SelectOption(f"label={label} Default External Access", external), s.click_button("Save"), Done()]


TEMPLATES = [OrgWideDefaults()]
