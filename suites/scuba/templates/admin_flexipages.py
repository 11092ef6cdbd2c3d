"""Admin persona: Dynamic Forms, a field on a record page shown only when a condition holds (SCUBA's
``create_dynamic_forms``), read from a Metadata API retrieve of every ``FlexiPage`` as SCUBA's retrieval
workflow does.

Ground truth: ``object_name``, ``field_name`` (``Record.AnnualRevenue``), ``field_2`` (the condition's left
value, ``{!Record.Active__c}``), ``operator`` (``EQUAL``, ``GT``, ``LT``, ``CONTAINS``) and ``value``. SCUBA takes
the first FlexiPage whose ``sobjectType`` is the object (here: in file-name order), collects the visibility
rules of the field instances of its regions, keeps the last one on ``field_name``, and scores 0.2 each: the
page, a rule on the field, its left value, its operator, its right value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence
from xml.etree import ElementTree as ET

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done, Fill, SelectOption

from . import metadata_io as md
from . import shared as s

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def visibility_rules(page: ET.Element) -> list[tuple[str | None, ET.Element]]:
    """(field item, criteria) of every field instance with a visibility rule in the page's regions, in order.
    A rule with several criteria gives one entry per criterion (SCUBA reads exactly one: see DEVIATIONS.md)."""
    out = []
    for region in md.items(page, "flexiPageRegions"):
        for instance in md.items(region, "itemInstances"):
            field = instance.find("fieldInstance")
            rule = field.find("visibilityRule") if field is not None else None
            if field is None or rule is None:
                continue
            out += [(md.text(field, "fieldItem"), c) for c in md.items(rule, "criteria")]
    return out


class CreateDynamicForms(s.ScubaTemplate):
    """A record page of the object whose field instance has the visibility rule."""

    name = "create_dynamic_forms"
    ground_truth_keys = ("field_2", "field_name", "object_name", "operator", "value")
    objects = ("EntityDefinition",)
    milestones = {"dynamic form": 0.2, "visibility rule": 0.2, "rule field": 0.2, "rule operator": 0.2,
                  "rule value": 0.2}

    def check(self, ctx: EvalContext) -> None:
        truth = ctx.truth
        obj, field = str(truth.get("object_name", "")), str(truth.get("field_name", ""))
        pages = md.retrieve(ctx.env.org, {"FlexiPage": ["*"]}).get("flexipages", {})
        page = next((p for _, p in sorted(pages.items()) if md.text(p, "sobjectType") == obj), None)
        if s.exact() and page is not None:  # the page shapes SCUBA's xmltodict reading breaks on (DEVIATIONS.md)
            regions = md.items(page, "flexiPageRegions")
            s.crash_unless(len(regions) != 1, f"the FlexiPage of {obj} has one region (SCUBA: AttributeError on "
                                              "a region read as a dict)")
            several = [md.text(f, "fieldItem") for r in regions for i in md.items(r, "itemInstances")
                       for f in [i.find("fieldInstance")] if f is not None and f.find("visibilityRule") is not None
                       and len(md.items(f.find("visibilityRule"), "criteria")) > 1]
            s.crash_unless(not several, f"the visibility rule of {several[:1]} has several criteria (SCUBA: "
                                        "TypeError on a list of criteria)")
        rule = None
        for item, criteria in visibility_rules(page) if page is not None else []:
            if item == field:
                rule = criteria
        none = f"no FlexiPage of {obj}" if page is None else f"no visibility rule on {field!r}"
        with milestone("dynamic form"):
            assert page is not None, none
        with milestone("visibility rule"):
            assert rule is not None, none
        for name, tag, key in (("rule field", "leftValue", "field_2"), ("rule operator", "operator", "operator"),
                               ("rule value", "rightValue", "value")):
            with milestone(name):
                assert rule is not None, none
                assert md.text(rule, tag) == str(truth.get(key)), \
                    f"{tag} {md.text(rule, tag)!r}, expected {truth.get(key)!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj = str(truth["object_name"])
        criteria = md.element("criteria", leftValue=truth["field_2"], operator=truth["operator"],
                              rightValue=truth["value"])
        props = md.element("fieldInstanceProperties", name="uiBehavior", value="none")
        field = md.element("fieldInstance", props, md.element("visibilityRule", criteria),
                           fieldItem=truth["field_name"],
                           identifier=f"{str(truth['field_name']).replace('.', '')}Field")
        # a record page as Lightning App Builder saves one: a header, the main region whose field section shows
        # the facet of the dynamic form's fields, a sidebar
        facet = md.element("flexiPageRegions", md.element("itemInstances", field), mode="Replace",
                           name="Facet-details", type="Facet")

        def component(name: str, *props: str) -> str:
            return md.element("itemInstances", md.element("componentInstance", *props, componentName=name,
                                                          identifier=name.replace(":", "_")))

        section = component("flexipage:fieldSection", md.element("componentInstanceProperties", name="columns",
                                                                   value="Facet-details"))
        regions = [md.element("flexiPageRegions", component("force:highlightsPanel"), name="header", type="Region"),
                   facet, md.element("flexiPageRegions", section, name="main", type="Region"),
                   md.element("flexiPageRegions", component("runtime_sales_activities:activityPanel"),
                              name="sidebar", type="Region")]
        full = f"{obj}_Record_Page"
        template = md.element("template", name="flexipage:recordHomeTemplateDesktop")
        page = md.component("FlexiPage", *regions, template, masterLabel=f"{obj} Record Page", sobjectType=obj,
                            type="RecordPage")
        md.deploy(sf, {f"flexipages/{full}.flexipage": page}, {"FlexiPage": [full]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """Object Manager > the object > Lightning Record Pages > New: the label, the field added to the Fields,
        its visibility filter (field, operator, value), Save."""
        truth = task.ground_truth
        obj = str(truth["object_name"])
        described = s.describe(env, obj) or {}
        label = str(described.get("label") or obj)
        field = str(truth["field_name"])
        field_label = next((f["label"] for f in described.get("fields", []) if f"Record.{f['name']}" == field), field)
        left = str(truth["field_2"]).removeprefix("{!").removesuffix("}")
        return [*s.open_object(env, label), s.click_link("Lightning Record Pages"), s.click_button("New"),
                Fill("label=Label", f"{label} Record Page"), SelectOption("label=Add Field", field),
                s.click_button("Add"), SelectOption("label=Filter Field 1", left),
                SelectOption("label=Filter Operator 1", str(truth["operator"])),
                Fill("label=Filter Value 1", str(truth["value"])), s.click_button(f"Add Filter to {field_label}"),
                s.click_button("Save"), Done()]


TEMPLATES = [CreateDynamicForms()]
