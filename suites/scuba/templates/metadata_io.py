"""The one home of the Metadata API as the SCUBA templates use it, over the client's own session (``env.org``:
simple-salesforce), so it works against any org that serves ``/services/Soap/m/<version>``:

- ``read`` / ``read_one`` (``readMetadata``) and ``upsert`` (``upsertMetadata``): raw SOAP calls (``call``);
- ``retrieve`` a package, as SCUBA's ``sf project retrieve start --manifest`` does, and ``deploy`` one (the
  oracles), through simple-salesforce's metadata client (``sf.mdapi.retrieve`` / ``retrieve_zip``,
  ``sf.deploy`` / ``sf.checkDeployStatus``: its own SOAP envelopes, no WSDL download needed);
- XML builders: ``xml`` (a Python value as elements), ``element`` and ``component`` (a component file's text);
- profiles compared by their decoded file names (``profile_key``, ``resolve_profiles``).

Components come back as namespace-free ElementTree elements (``plain``); ``items``, ``text``, ``texts`` and
``flags`` read them the way SCUBA reads the files it retrieves with xmltodict: a single child and a list of
them are the same (always a list here), leaf text is stripped, a missing element is an empty list or None.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any, Iterable, Mapping, Sequence
from urllib.parse import unquote
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

from pytest_cua.orgs import mdapi
from pytest_cua.orgs.mdapi import API_VERSION, MD_NS, MetadataCallError, call, plain  # noqa: F401 - the templates' names

#: package folder -> file suffix of the types the templates read
SUFFIX = {"objects": "object", "tabs": "tab", "applications": "app", "profiles": "profile",
          "flexipages": "flexipage", "approvalProcesses": "approvalProcess", "workflows": "workflow",
          "entitlementProcesses": "entitlementProcess"}


# --- reading elements -----------------------------------------------------------------------------------------


def items(el: ET.Element | None, tag: str) -> list[ET.Element]:
    """The child elements called ``tag`` (none when ``el`` is None)."""
    return [] if el is None else [c for c in el if c.tag == tag]


def text(el: ET.Element | None, path: str, default: str | None = None) -> str | None:
    """The text of the first element at ``path`` (``action/type``); ``default`` when there is none (an empty
    element is "")."""
    if el is None:
        return default
    found = el.find(path)
    return default if found is None else (found.text or "")


def texts(el: ET.Element | None, tag: str) -> list[str]:
    """The texts of every child called ``tag``."""
    return [(c.text or "") for c in items(el, tag)]


def flags(el: ET.Element | None, names: Iterable[str]) -> list[str]:
    """Which of ``names`` are children of ``el`` whose text is ``true``."""
    return [n for n in names if text(el, n) == "true"]


# --- writing elements -----------------------------------------------------------------------------------------


def xml(tag: str, value: Any) -> str:
    """XML for a value: a mapping is nested elements, a list repeats the tag, a bool is true/false."""
    if isinstance(value, Mapping):
        return f"<{tag}>" + "".join(xml(k, v) for k, v in value.items()) + f"</{tag}>"
    if isinstance(value, (list, tuple)):
        return "".join(xml(tag, v) for v in value)
    if isinstance(value, bool):
        value = "true" if value else "false"
    return f"<{tag}>{escape(str(value))}</{tag}>"


def element(tag: str, *children: str, **leaves: Any) -> str:
    """``<tag>`` holding ``leaves`` (each as ``xml``: a list value repeats the leaf) then ``children`` (XML
    text)."""
    return f"<{tag}>{''.join(xml(k, v) for k, v in leaves.items())}{''.join(children)}</{tag}>"


def component(root: str, *children: str, **leaves: Any) -> str:
    """A component file's text: ``<root xmlns=...>`` with leaves and children."""
    body = element(root, *children, **leaves)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body.replace(f"<{root}>", f'<{root} xmlns="{MD_NS}">', 1)


# --- CRUD calls: readMetadata, upsertMetadata -----------------------------------------------------------------


def read(sf: Any, type_name: str, full_names: Sequence[str]) -> dict[str, ET.Element]:
    """``readMetadata``: fullName -> body of each component that exists (missing ones are left out)."""
    names = "".join(xml("fullNames", n) for n in full_names)
    response = call(sf, "readMetadata", f"{xml('type', type_name)}{names}")
    out: dict[str, ET.Element] = {}
    for rec in response.iter("records"):
        name = rec.findtext("fullName")
        if name:  # Salesforce answers a missing component with an empty record
            out[name] = rec
    return out


def read_one(sf: Any, type_name: str, full_name: str) -> ET.Element | None:
    """The body of one component, or None. Its name in any letter case finds it, as ``readMetadata`` does
    (the record comes back under the name it is stored under)."""
    found = read(sf, type_name, [full_name])
    return found.get(full_name) or next(iter(found.values()), None)


def read_exact(sf: Any, type_name: str, full_name: str) -> ET.Element | None:
    """The body of one component only when it is stored under exactly ``full_name``: where SCUBA's evaluator
    opens the retrieved file under the name it expects (``permissionsets/Account_Access.permissionset``), a
    component stored in another letter case (``account_access``, the file Salesforce writes for it) is missing
    to it, and so to the template."""
    return read(sf, type_name, [full_name]).get(full_name)


def upsert(sf: Any, type_name: str, full_name: str, body: Mapping[str, Any]) -> None:
    """``upsertMetadata`` of one component; ``body`` as for ``xml`` (without fullName)."""
    inner = xml("fullName", full_name) + "".join(xml(k, v) for k, v in body.items())
    response = call(sf, "upsertMetadata", f'<metadata xsi:type="{escape(type_name)}">{inner}</metadata>')
    for result in response.iter("result"):
        if result.findtext("success") != "true":
            errors = "; ".join(f"{e.findtext('statusCode')}: {e.findtext('message')}" for e in result.iter("errors"))
            raise MetadataCallError(f"upsertMetadata {type_name} {full_name!r}: {errors}")


# --- file-based calls: retrieve, deploy -----------------------------------------------------------------------


def retrieve(sf: Any, types: Mapping[str, Iterable[str]]) -> dict[str, dict[str, ET.Element]]:
    """Retrieve ``types`` (type -> members, ``*`` allowed) -> folder -> member name -> root element.

    Member names are the file names without the suffix, as SCUBA's parser takes them
    (``profiles/Custom%3A Sales Profile.profile`` -> ``Custom%3A Sales Profile``)."""
    zipped = mdapi.retrieve_zip(sf, types)
    out: dict[str, dict[str, ET.Element]] = {}
    with zipfile.ZipFile(io.BytesIO(zipped)) as zf:
        for path in sorted(zf.namelist()):
            folder, _, file = path.removeprefix("unpackaged/").partition("/")
            suffix = SUFFIX.get(folder)
            if not suffix or not file.endswith(f".{suffix}") or "/" in file:
                continue
            out.setdefault(folder, {})[file[: -len(suffix) - 1]] = plain(ET.fromstring(zf.read(path)))
    return out


def deploy(sf: Any, files: Mapping[str, str], types: Mapping[str, list[str]]) -> None:
    """Deploy ``files`` (package path -> XML text) naming ``types`` in package.xml; raise unless it succeeded."""
    mdapi.deploy(sf, files, types)


# --- profiles -------------------------------------------------------------------------------------------------


def profile_key(name: str) -> str:
    """A profile's name compared as SCUBA's ground truth writes it: the file name decoded
    (``Custom%3A Sales Profile`` and ``Custom: Sales Profile`` are one profile)."""
    return unquote(name).strip()


def profile_names(sf: Any) -> dict[str, str]:
    """Profile fullNames of the org by their decoded name (``profile_key``)."""
    found = retrieve(sf, {"Profile": ["*"]}).get("profiles", {})
    return {profile_key(n): n for n in found}


def profile_file(name: str, *children: str) -> tuple[str, str]:
    """(package path, text) of a Profile component holding ``children``."""
    return f"profiles/{name}.profile", component("Profile", *children)


def resolve_profiles(sf: Any, wanted: Iterable[str]) -> list[str]:
    """The org's fullNames of the profiles ``wanted`` names (decoded names compared); a name the org lacks is
    an error naming it (the oracle cannot grant access to a profile that is not there)."""
    known = profile_names(sf)
    out = []
    for name in wanted:
        full = known.get(profile_key(name))
        if full is None:
            raise MetadataCallError(f"the org has no profile {name!r} (profiles: {sorted(known)})")
        out.append(full)
    return out
