"""Metadata XML: safe parsing, namespace-free element trees and the file form Salesforce writes.

A component body is an ``ElementTree.Element`` whose tags are local names (``GlobalValueSet``, ``customValue``,
...): the metadata namespace is taken off when a file or a SOAP record is read and put back when one is written.
Parsing refuses DOCTYPE and ENTITY declarations (no entity expansion, no external references), like the SOAP
endpoints do.
"""

from __future__ import annotations

from typing import Iterable
from xml.etree import ElementTree as ET

MD = "http://soap.sforce.com/2006/04/metadata"
XSI = "http://www.w3.org/2001/XMLSchema-instance"


class MetadataXmlError(ValueError):
    """A metadata document that is not well-formed (the message names the file)."""


def local(tag: str) -> str:
    """``{ns}name`` -> ``name``."""
    return tag.rsplit("}", 1)[-1]


def strip(element: ET.Element) -> ET.Element:
    """A copy of ``element`` with local tags and trimmed leaf text; attributes are dropped but ``xsi:nil``."""
    out = ET.Element(local(element.tag))
    for key, value in element.attrib.items():
        if local(key) == "nil" and value.strip().lower() == "true":
            out.set("nil", "true")
    text = (element.text or "").strip()
    if len(element) == 0 and text:
        out.text = text
    for child in element:
        out.append(strip(child))
    return out


def parse(data: bytes | str, source: str) -> ET.Element:
    """Parse a metadata file (``source`` names it in errors) into a namespace-free tree."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    upper = raw.upper()
    if b"<!DOCTYPE" in upper or b"<!ENTITY" in upper:
        raise MetadataXmlError(f"{source}: document type declarations are not accepted")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as exc:
        raise MetadataXmlError(f"{source}: not well-formed XML: {exc}") from None
    return strip(root)


def element(tag: str, children: Iterable[ET.Element] = (), text: str | None = None) -> ET.Element:
    """A new element with ``children`` (copied references) or ``text``."""
    out = ET.Element(tag)
    if text is not None:
        out.text = text
    out.extend(children)
    return out


def leaf(tag: str, value: object) -> ET.Element:
    """``<tag>value</tag>``; booleans are written ``true`` / ``false``."""
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return element(tag, text=text)


def text_of(parent: ET.Element, name: str, default: str | None = None) -> str | None:
    """The text of the first child called ``name``, or ``default``."""
    for child in parent:
        if child.tag == name:
            return (child.text or "").strip()
    return default


def children(parent: ET.Element, name: str) -> list[ET.Element]:
    """All children called ``name``."""
    return [c for c in parent if c.tag == name]


def flag(parent: ET.Element, name: str, default: bool = False) -> bool:
    """A boolean child (``true`` / ``false``)."""
    value = text_of(parent, name)
    return default if value is None else value.lower() == "true"


def canonical(body: ET.Element) -> str:
    """The compact text of a tree (what the store keeps and compares)."""
    return ET.tostring(body, encoding="unicode", short_empty_elements=True)


def from_canonical(text: str) -> ET.Element:
    """The tree of ``canonical`` text (written by this module, hence trusted)."""
    return ET.fromstring(text)


def sorted_children(body: ET.Element, first: Iterable[str] = ("fullName",)) -> ET.Element:
    """A copy of ``body`` with its children ordered as Salesforce writes them: ``first`` names, then by tag
    (stable among equal tags)."""
    lead = list(first)
    rank = {name: i for i, name in enumerate(lead)}
    out = ET.Element(body.tag, body.attrib)
    out.text = body.text
    out.extend(sorted(body, key=lambda c: (0, rank[c.tag], "") if c.tag in rank else (1, 0, c.tag)))
    return out


def with_namespace(body: ET.Element) -> ET.Element:
    """A deep copy of ``body`` in the metadata namespace."""
    out = ET.Element(f"{{{MD}}}{body.tag}", {k: v for k, v in body.attrib.items() if k != "nil"})
    out.text = body.text
    for child in body:
        out.append(with_namespace(child))
    return out


def to_file(body: ET.Element) -> bytes:
    """The file form: XML declaration, default metadata namespace, four-space indentation."""
    ET.register_namespace("", MD)
    tree = with_namespace(body)
    ET.indent(tree, space="    ")
    text = ET.tostring(tree, encoding="unicode")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + text + "\n").encode("utf-8")


def to_soap(body: ET.Element, tag: str, xsi_type: str | None = None) -> str:
    """``body``'s children inside ``<tag>`` for a SOAP response whose envelope declares the metadata namespace
    as default and ``xsi``; ``xsi_type`` adds ``xsi:type``."""
    out = ET.Element(tag)
    if xsi_type:
        out.set("xsi:type", xsi_type)
    out.extend(list(body))
    return ET.tostring(out, encoding="unicode", short_empty_elements=True)
