"""Admin persona, the data model: custom objects, their tabs, lookup and formula fields and who sees a field
(SCUBA's ``custom_obj_with_tab``, ``create_custom_object_with_lookup``, ``add_formula_field_with_visibility``).

Each reads the org as SCUBA's retrieval workflow does: one Metadata API retrieve of the workflow's package
(``CustomObject`` / ``CustomTab`` / ``CustomField`` members and every ``Profile``), then SCUBA's checks on the
files. A profile "sees" a field when its ``fieldPermissions`` for the field say ``readable`` true; the set of
such profiles must equal the ground truth's list exactly. Profiles are compared by their file names decoded
(``Custom%3A Sales Profile`` is ``Custom: Sales Profile``).

- ``custom_obj_with_tab`` (``custom_obj_name``): the object ``<name>__c`` retrieved 0.5, its tab 0.5.
- ``create_custom_object_with_lookup`` (``object_name``, ``related_object``, ``comma_separated_profile_list``):
  the object 0.2; its first custom field whose name starts with the related object's name is a Lookup to
  it 0.4; exactly the listed profiles can read that field 0.4.
- ``add_formula_field_with_visibility`` (``field_name`` as the API name, ``object_name``, ``formula``,
  ``comma_separated_profiles``): the field retrieved 0.2, it has a formula 0.2, the formula equals the
  ground truth's with spaces removed 0.3, exactly the listed profiles can read it 0.3.
"""

from __future__ import annotations

import fnmatch
import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from xml.etree import ElementTree as ET

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Check, Click, Done, Fill, SelectOption

from . import metadata_io as md
from . import shared as s

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def _names(value: Any, sep: str = ",") -> list[str]:
    return [x.strip() for x in str(value or "").split(sep) if x.strip()]


def readers(profiles: Mapping[str, ET.Element], field: str) -> list[str]:
    """The profiles (file names) whose fieldPermissions let them read ``field`` (``Object__c.Field__c``)."""
    return [name for name, body in profiles.items()
            if any(md.text(fp, "field") == field and md.text(fp, "readable") == "true"
                   for fp in md.items(body, "fieldPermissions"))]


def same_profiles(seen: list[str], wanted: list[str]) -> tuple[bool, str]:
    got, want = {md.profile_key(n) for n in seen}, {md.profile_key(n) for n in wanted}
    return got == want, f"readable for {sorted(got)}, expected exactly {sorted(want)}"


def _object_file(label: str, *fields: str) -> str:
    name_field = md.element("nameField", label=f"{label} Name", type="Text")
    return md.component("CustomObject", name_field, *fields, label=label, pluralLabel=f"{label}s",
                        deploymentStatus="Deployed", sharingModel="ReadWrite")


def _field_permissions(field: str) -> str:
    return md.element("fieldPermissions", editable=False, field=field, readable=True)


def _profiles_granting(sf: Any, field: str, names: list[str]) -> dict[str, str]:
    out = {}
    for full in md.resolve_profiles(sf, names):
        path, text = md.profile_file(full, _field_permissions(field))
        out[path] = text
    return out


def _new_object_steps(env: Any, label: str, launch_tab: bool = False) -> list[Action]:
    """Setup > Object Manager > Create > Custom Object: label, plural label (and the tab wizard box), Save."""
    steps: list[Action] = [*s.setup_link(env, "Object Manager"), s.open_create_menu(),
                           Click('role=menuitem[name="Custom Object"]'), Fill("label=Label", label),
                           Fill("label=Plural Label", f"{label}s")]
    if launch_tab:
        steps.append(Check("label=Launch New Custom Tab Wizard after saving this custom object"))
    return [*steps, s.click_button("Save")]


def _visible_only(sf: Any, wanted: list[str]) -> list[Action]:
    """The field-level security step: Visible for exactly the profiles ``wanted`` (ground-truth names)."""
    labels = s.profile_labels(sf)
    return s.only_checked(labels.values(), [labels.get(md.profile_key(w), w) for w in wanted],
                          "Visible for {}", "Visible")


class CustomObjectWithTab(s.ScubaTemplate):
    """A custom object and a tab for it."""

    name = "custom_obj_with_tab"
    ground_truth_keys = ("custom_obj_name",)
    objects = ("EntityDefinition",)
    milestones = {"custom object": 0.5, "custom tab": 0.5}

    def check(self, ctx: EvalContext) -> None:
        api = f"{ctx.truth.get('custom_obj_name', '')}__c"
        found = md.retrieve(ctx.env.org, {"CustomTab": [api], "CustomObject": [api]})
        with milestone("custom object"):
            assert api in found.get("objects", {}), f"no custom object {api!r}"
        with milestone("custom tab"):
            assert api in found.get("tabs", {}), f"no custom tab for {api!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        label = str(task.ground_truth["custom_obj_name"])
        api = f"{label}__c"
        sf = env.org  # type: ignore[attr-defined]
        md.deploy(sf, {f"objects/{api}.object": _object_file(label),
                            f"tabs/{api}.tab": md.component("CustomTab", customObject=True,
                                                            motif="Custom1: Heart")},
                  {"CustomObject": [api], "CustomTab": [api]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """The new object with "Launch New Custom Tab Wizard", then the wizard with a style and the defaults."""
        return [*_new_object_steps(env, str(task.ground_truth["custom_obj_name"]), launch_tab=True),
                s.click_button("Tab Style"), s.click_button("Heart"), s.click_button("Next"),
                s.click_button("Next"), s.click_button("Save"), Done()]


class CustomObjectWithLookup(s.ScubaTemplate):
    """A custom object with a lookup field to another object, readable by exactly the listed profiles."""

    name = "create_custom_object_with_lookup"
    ground_truth_keys = ("comma_separated_profile_list", "object_name", "related_object")
    objects = ("EntityDefinition", "Profile")
    milestones = {"custom object": 0.2, "lookup field": 0.4, "field visible only to the profiles": 0.4}

    def check(self, ctx: EvalContext) -> None:
        truth = ctx.truth
        api, related = f"{truth.get('object_name', '')}__c", str(truth.get("related_object", ""))
        found = md.retrieve(ctx.env.org, {"CustomObject": [api], "Profile": ["*"]})
        obj = found.get("objects", {}).get(api)
        # SCUBA: the first field file objects/<api>/fields/<related>*__c
        fields = sorted((f for f in md.items(obj, "fields")
                         if fnmatch.fnmatchcase(md.text(f, "fullName") or "", f"{related}*__c")),
                        key=lambda f: md.text(f, "fullName") or "")
        lookup = fields[0] if fields else None
        with milestone("custom object"):
            assert obj is not None, f"no custom object {api!r}"
        with milestone("lookup field"):
            assert lookup is not None, f"{api} has no custom field named {related}*__c"
            kind, target = md.text(lookup, "type"), md.text(lookup, "referenceTo")
            assert kind == "Lookup" and target == related, \
                f"{api}.{md.text(lookup, 'fullName')} is {kind} to {target!r}, not a Lookup to {related!r}"
        with milestone("field visible only to the profiles"):
            field = f"{api}.{md.text(lookup, 'fullName') if lookup is not None else None}"
            ok, why = same_profiles(readers(found.get("profiles", {}), field),
                                    _names(truth.get("comma_separated_profile_list")))
            assert ok, f"{field}: {why}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        label, related = str(truth["object_name"]), str(truth["related_object"])
        api, fname = f"{label}__c", f"{related}__c"
        lookup = md.element("fields", fullName=fname, label=related, type="Lookup", referenceTo=related,
                            relationshipName=f"{label}s", deleteConstraint="SetNull")
        files = {f"objects/{api}.object": _object_file(label, lookup),
                 **_profiles_granting(sf, f"{api}.{fname}", _names(truth["comma_separated_profile_list"]))}
        md.deploy(sf, files, {"CustomObject": [api], "Profile": [p[len("profiles/"):-len(".profile")]
                                                                  for p in files if p.startswith("profiles/")]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """The new object, then Fields & Relationships > New > Lookup Relationship to the object, visible to the
        listed profiles."""
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        related = str(truth["related_object"])
        related_label = sf.restful(f"sobjects/{related}/describe").get("label", related)
        return [*_new_object_steps(env, str(truth["object_name"])), s.click_link("Fields & Relationships"),
                s.click_button("New"), Check("label=Lookup Relationship"), s.click_button("Next"),
                SelectOption("label=Related To", related_label), s.click_button("Next"), s.click_button("Next"),
                *_visible_only(sf, _names(truth["comma_separated_profile_list"])), s.click_button("Next"),
                s.click_button("Save"), Done()]


def formula_type(formula: str) -> str:
    """The field type a formula's value has: text when it concatenates or is TEXT(), a checkbox when it
    compares, a number otherwise (date differences are numbers)."""
    bare = re.sub(r'"[^"]*"', '""', formula)
    if "&" in bare or bare.strip().upper().startswith("TEXT("):
        return "Text"
    if re.search(r"(?<![<>!=])=(?!=)|==|!=|<>|<|>", bare) and not bare.strip().upper().startswith("IF("):
        return "Checkbox"
    return "Number"


class FormulaFieldWithVisibility(s.ScubaTemplate):
    """A formula field on an object, readable by exactly the listed profiles."""

    name = "add_formula_field_with_visibility"
    ground_truth_keys = ("comma_separated_profiles", "field_name", "formula", "object_name")
    objects = ("EntityDefinition", "Profile")
    milestones = {"field exists": 0.2, "formula field": 0.2, "correct formula": 0.3,
                  "field visible only to the profiles": 0.3}

    def check(self, ctx: EvalContext) -> None:
        truth = ctx.truth
        obj_name, fname = str(truth.get("object_name", "")), str(truth.get("field_name", ""))
        full = f"{obj_name}.{fname}"
        found = md.retrieve(ctx.env.org, {"Profile": ["*"], "CustomField": [full]})
        field = next((f for f in md.items(found.get("objects", {}).get(obj_name), "fields")
                      if md.text(f, "fullName") == fname), None)
        formula = md.text(field, "formula")
        with milestone("field exists"):
            assert field is not None, f"no field {full!r}"
        with milestone("formula field"):
            assert formula is not None, f"{full!r} has no formula" if field is not None else f"no field {full!r}"
        with milestone("correct formula"):
            expected = str(truth.get("formula", ""))
            assert formula and formula.replace(" ", "") == expected.replace(" ", ""), \
                f"formula {formula!r}, expected {expected!r} (spaces ignored)"
        with milestone("field visible only to the profiles"):
            ok, why = same_profiles(readers(found.get("profiles", {}), full),
                                    _names(truth.get("comma_separated_profiles")))
            assert ok, f"{full}: {why}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj_name, fname, formula = str(truth["object_name"]), str(truth["field_name"]), str(truth["formula"])
        kind = formula_type(formula)
        extra: dict[str, Any] = {"precision": 18, "scale": 2} if kind == "Number" else {}
        field = md.element("fields", fullName=fname, label=fname.removesuffix("__c").replace("_", " "),
                           formula=formula, type=kind, **extra)
        files = {f"objects/{obj_name}.object": md.component("CustomObject", field),
                 **_profiles_granting(sf, f"{obj_name}.{fname}", _names(truth["comma_separated_profiles"]))}
        md.deploy(sf, files, {"CustomField": [f"{obj_name}.{fname}"],
                              "Profile": [p[len("profiles/"):-len(".profile")] for p in files
                                          if p.startswith("profiles/")]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """Object Manager > the object > Fields & Relationships > New > Formula: label and name, the return type
        the formula has, the formula, visible to the listed profiles."""
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj_name, fname, formula = str(truth["object_name"]), str(truth["field_name"]), str(truth["formula"])
        label = sf.restful(f"sobjects/{obj_name}/describe").get("label", obj_name)
        return [*s.open_object(env, label), s.click_link("Fields & Relationships"), s.click_button("New"),
                Check("label=Formula"), s.click_button("Next"),
                Fill("label=Field Label", fname.removesuffix("__c").replace("_", " ")),
                Fill("label=Field Name", fname.removesuffix("__c")), Check(f"label={formula_type(formula)}"),
                s.click_button("Next"), Fill("label=Formula", formula), s.click_button("Next"),
                *_visible_only(sf, _names(truth["comma_separated_profiles"])), s.click_button("Next"),
                s.click_button("Save"), Done()]


TEMPLATES = [CustomObjectWithTab(), CustomObjectWithLookup(), FormulaFieldWithVisibility()]
