"""The Object Manager's shared pieces: its address, an object's page (a Lightning page of the object, or one of its
Classic pages in Setup's frame; the layout around both, with the object's navigation, is ``object_nav``'s), the
objects by label, a field's data type as the Object Manager names it, and reading and rewriting the leaves of a
metadata component.

The Object Manager's pages live in ``routes_objects`` (objects), ``routes_fields`` and ``routes_field_wizard``
(fields), ``routes_picklists`` (picklist values), ``routes_flexipages`` (Lightning Record Pages) and
``routes_validation_rules``; each imports what it shares from here, never from another route module.
"""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import RequestContext
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema
from pytest_cua.orgs.localorg.ui.object_nav import OM
from pytest_cua.orgs.localorg.ui.setup_common import metadata_store, setup_render
from pytest_cua.orgs.localorg.ui.setup_frame import classic_segment

__all__ = ["OM", "object_page", "objects_by_label", "read_component", "type_label", "with_leaves"]


def objects_by_label(ctx: RequestContext) -> list[ObjectSchema]:
    """Every object of the schema, by label."""
    return sorted((o for o in ctx.org.schema.objects.values()), key=lambda o: o.label.lower())


def type_label(f: FieldSchema, formula: bool) -> str:
    """The data type of ``f`` as Fields & Relationships shows it ("Lookup(Account)", "Formula (Number)")."""
    if f.type == "reference":
        return f"{'Master-Detail' if f.cascade_delete else 'Lookup'}({', '.join(f.reference_to)})"
    kind = {"string": "Text", "textarea": "Text Area", "boolean": "Checkbox", "double": "Number", "int": "Number",
            "datetime": "Date/Time", "url": "URL", "multipicklist": "Picklist (Multi-Select)"}.get(
                f.type, f.type.capitalize())
    if f.auto_number:
        kind = "Auto Number"
    return f"Formula ({kind})" if formula else kind


def read_component(ctx: RequestContext, type_name: str, full_name: str) -> ET.Element | None:
    """A metadata component as the Metadata store holds it (None when there is none)."""
    return metadata_store(ctx).read(type_name, full_name)


def object_page(ctx: RequestContext, obj: ObjectSchema, **values: Any) -> Response:
    """An object's page in Object Manager's layout (``object_nav``). Its Lightning pages (Details, the lists of
    fields, validation rules and record pages) are SLDS cards (``setup/om_object.html``: ``details`` as read-only
    form elements, ``sections`` as tables with Quick Find and their actions); its Classic pages (a field's page, a
    validation rule's: ``setup_frame``) are Classic pages in the frame (``setup/detail.html``)."""
    values.setdefault("actions", [])
    values.setdefault("heading", obj.label)
    template = "setup/detail.html" if classic_segment(ctx.request.path) else "setup/om_object.html"
    return setup_render(ctx, template, title=f"{obj.label} | Object Manager", **values)


def with_leaves(body: ET.Element, values: dict[str, str], drop_children: bool = False) -> ET.Element:
    """``body`` with the leaves ``values`` set (an empty value removes the leaf); with ``drop_children`` the
    object's child components (fields, list views, ...) are left out, so the write changes the object alone."""
    from pytest_cua.orgs.localorg.metadata.types import TYPES

    skip = set(values) | ({"fullName"} | set(TYPES["CustomObject"].children) if drop_children else {"fullName"})
    out = ET.Element(body.tag)
    out.extend(c for c in body if c.tag not in skip)
    out.extend(X.leaf(tag, value) for tag, value in values.items() if value)
    return out
