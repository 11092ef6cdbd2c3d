"""Admin persona, custom object metadata: an object's description and a field's help text.

SCUBA's ``update_custom_object_description_and_help_text`` (ground truth ``object_name``, ``description_text``,
``field_name``, ``help_text``; the object and the field without their ``__c``). SCUBA retrieves the components
``CustomObject <object>__c`` and ``CustomField <object>__c.<field>__c``
(evaluation_data_retrieval_workflows_admin.json) and scores, in milestone_evaluator_admin.py:

- the object's ``description`` equals ``description_text`` (0.5),
- the field's ``inlineHelpText`` equals ``help_text`` (0.5),

both compared ignoring letter case and leading or trailing dots and spaces (SCUBA: ``.lower().strip('. ')``).
Here both components are read with the Metadata API's ``readMetadata`` over the client's session; a missing
object or field fails its milestone (SCUBA's scorer stops with an IndexError there, which scores the task 0).
The oracle reads each component, changes that one element and writes it back with ``upsertMetadata``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done, Fill

from . import metadata_io as md
from . import shared as s

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def _members(truth: Mapping[str, Any]) -> tuple[str, str]:
    """SCUBA's members: ``MyAnimal__c`` and ``MyAnimal__c.Breed__c``."""
    obj = f"{truth.get('object_name', '')}__c"
    return obj, f"{obj}.{truth.get('field_name', '')}__c"


def same(found: str | None, expected: Any) -> bool:
    """SCUBA's comparison: letter case and leading or trailing dots and spaces do not count."""
    return (found or "").lower().strip(". ") == str(expected or "").lower().strip(". ")


def _upsert_changed(sf: Any, type_name: str, full_name: str, body: ET.Element, tag: str, value: str,
                    drop: tuple[str, ...] = ()) -> None:
    """Write ``body`` back with ``tag`` set to ``value`` (the other elements as read, ``drop`` left out)."""
    kept = [c for c in body if c.tag not in ("fullName", tag, *drop)]
    kept.append(ET.Element(tag))
    kept[-1].text = value
    inner = md.element("fullName", full_name) + "".join(
        ET.tostring(c, encoding="unicode") for c in sorted(kept, key=lambda c: c.tag))
    response = md.call(sf, "upsertMetadata", f'<metadata xsi:type="{escape(type_name)}">{inner}</metadata>')
    for result in response.iter("result"):
        if result.findtext("success") != "true":
            errors = "; ".join(f"{e.findtext('statusCode')}: {e.findtext('message')}" for e in result.iter("errors"))
            raise md.MetadataCallError(f"upsertMetadata {type_name} {full_name!r}: {errors}")


class UpdateCustomObjectDescriptionAndHelpText(s.ScubaTemplate):
    """A custom object's description and the help text of one of its fields."""

    name = "update_custom_object_description_and_help_text"
    ground_truth_keys = ("description_text", "field_name", "help_text", "object_name")
    objects = ()
    milestones = {"object description": 0.5, "field help text": 0.5}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        obj_name, field_name = _members(truth)
        obj = md.read_one(sf, "CustomObject", obj_name)
        fld = md.read_one(sf, "CustomField", field_name)
        if s.exact():  # SCUBA reads [0] of each: IndexError without the object or the field
            s.crash_unless(obj is not None, f"no custom object {obj_name!r} (SCUBA: IndexError)")
            s.crash_unless(fld is not None, f"no custom field {field_name!r} (SCUBA: IndexError)")
        with milestone("object description"):
            assert obj is not None, f"no custom object {obj_name!r}"
            found = md.text(obj, "description")
            assert same(found, truth.get("description_text")), \
                f"the description of {obj_name} is {found!r}, expected {truth.get('description_text')!r}"
        with milestone("field help text"):
            assert fld is not None, f"no custom field {field_name!r}"
            found = md.text(fld, "inlineHelpText")
            assert same(found, truth.get("help_text")), \
                f"the help text of {field_name} is {found!r}, expected {truth.get('help_text')!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj_name, field_name = _members(truth)
        obj = md.read_one(sf, "CustomObject", obj_name)
        fld = md.read_one(sf, "CustomField", field_name)
        if obj is None or fld is None:
            raise AssertionError(f"the org has no {obj_name if obj is None else field_name}: are the release's "
                                 "metadata prerequisites deployed?")
        children = ("fields", "listViews", "validationRules", "recordTypes", "businessProcesses", "webLinks",
                    "compactLayouts", "fieldSets", "sharingReasons", "indexes")
        _upsert_changed(sf, "CustomObject", obj_name, obj, "description", str(truth["description_text"]),
                        drop=children)
        _upsert_changed(sf, "CustomField", field_name, fld, "inlineHelpText", str(truth["help_text"]))

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """Object Manager > the object > Edit > Description; Fields & Relationships > the field > Edit > Help
        Text."""
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj_name, field_name = _members(truth)
        described = sf.restful(f"sobjects/{obj_name}/describe")
        field_label = next((f["label"] for f in described["fields"] if f["name"] == field_name.split(".", 1)[1]),
                           str(truth["field_name"]))
        return [*s.open_object(env, described.get("label", obj_name)), s.click_button("Edit"),
                Fill("label=Description", str(truth["description_text"])), s.click_button("Save"),
                s.click_link("Fields & Relationships"), s.click_link(field_label), s.click_button("Edit"),
                Fill("label=Help Text", str(truth["help_text"])), s.click_button("Save"), Done()]


TEMPLATES = [UpdateCustomObjectDescriptionAndHelpText()]
