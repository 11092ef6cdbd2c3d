"""Permission sets, profiles and permission set groups: metadata types held as PermissionSet, Profile,
PermissionSetGroup and PermissionSetGroupComponent records (the permissions the records have columns for),
the rest as overlay documents; ``profile_full_name`` is a profile's fullName in the Metadata API."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote
from xml.etree import ElementTree as ET

from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.base import ComponentError, Components, Handler, RecordHandler, by_dev_name, \
    one_record, text_or_none
from pytest_cua.orgs.localorg.store import Org

def _perm_fields(org: Org, sobject: str) -> dict[str, str]:
    """userPermissions name -> field (``ApiEnabled`` -> ``PermissionsApiEnabled``)."""
    obj = org.schema.get(sobject)
    if obj is None:
        return {}
    return {f.name[len("Permissions"):]: f.name for f in obj.fields.values()
            if f.name.startswith("Permissions") and f.type == "boolean"}


def _user_permissions(org: Org, sobject: str, rec: dict[str, Any]) -> list[ET.Element]:
    return [X.element("userPermissions", [X.leaf("enabled", True), X.leaf("name", name)])
            for name, fname in sorted(_perm_fields(org, sobject).items()) if rec.get(fname)]


def _permission_values(org: Org, sobject: str, body: ET.Element, *, merge: bool = False) -> dict[str, bool]:
    """Permission fields from the userPermissions of ``body``; unlisted ones are off (``merge``: untouched)."""
    perms = _perm_fields(org, sobject)
    out = {} if merge else {fname: False for fname in perms.values()}
    for up in X.children(body, "userPermissions"):
        name = X.text_of(up, "name") or ""
        if name in perms:
            out[perms[name]] = X.flag(up, "enabled")
    return out


class PermissionSetHandler(RecordHandler):
    """PermissionSet <-> PermissionSet records that a profile does not own (label, description,
    userPermissions the record has columns for); object, field and tab settings are the overlay."""

    mapped = frozenset({"label", "description", "hasActivationRequired"})

    def record(self, store: Components, full_name: str) -> dict[str, Any] | None:
        for rec in store.org.find("PermissionSet", IsOwnedByProfile=False):
            if (rec.get("Name") or "").lower() == full_name.lower() and rec.get("Type") in (None, "Regular"):
                return rec
        return None

    def record_names(self, store: Components) -> list[str]:
        return [r["Name"] for r in store.org.find("PermissionSet", IsOwnedByProfile=False)
                if r.get("Name") and r.get("Type") in (None, "Regular")]

    def elements(self, store: Components, full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        out = [X.leaf("label", rec.get("Label") or rec["Name"]),
               X.leaf("hasActivationRequired", bool(rec.get("HasActivationRequired")))]
        if rec.get("Description"):
            out.append(X.leaf("description", rec["Description"]))
        overlay = Handler.read(self, store, full_name)
        listed = {X.text_of(u, "name") for u in X.children(overlay, "userPermissions")} if overlay is not None else set()
        out += [u for u in _user_permissions(store.org, "PermissionSet", rec) if X.text_of(u, "name") not in listed]
        return out

    def apply(self, store: Components, full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        fields: dict[str, Any] = {"Label": text_or_none(body, "label") or full_name, "Description": text_or_none(body, "description"),
                                  "HasActivationRequired": X.flag(body, "hasActivationRequired"),
                                  **_permission_values(store.org, "PermissionSet", body)}
        if rec is None:
            return store.org.insert_trusted("PermissionSet", {**fields, "Name": full_name, "IsOwnedByProfile": False,
                                                              "Type": "Regular"}, user_id=store.user_id)
        store.org.update_trusted("PermissionSet", rec["Id"], fields, user_id=store.user_id)
        return str(rec["Id"])

    def remove(self, store: Components, full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("PermissionSet", rec["Id"])


#: Profile names of the Metadata API for the standard profiles whose file name is not their name ("Read Only"
#: keeps its name: profiles/Read Only.profile)
PROFILE_NAMES = {"System Administrator": "Admin", "Standard User": "Standard",
                 "Marketing User": "MarketingProfile", "Contract Manager": "ContractManager",
                 "Solution Manager": "SolutionManager", "Standard Platform User": "StandardAul"}


def profile_full_name(name: str) -> str:
    """A profile's fullName as the Metadata API gives it: the standard profiles' own names (``Admin``), others
    their name with every character but letters, digits, spaces, ``-`` and ``_`` percent-encoded, as Salesforce
    encodes them (``Custom: Sales Profile`` -> ``Custom%3A Sales Profile``, ``Force.com - Free User`` ->
    ``Force%2Ecom - Free User``)."""
    if name in PROFILE_NAMES:
        return PROFILE_NAMES[name]
    return "".join(c if c.isalnum() or c in " -_" else "".join(f"%{b:02X}" for b in c.encode("utf-8"))
                   for c in name)


class ProfileHandler(RecordHandler):
    """Profile <-> Profile records (description, userLicense, userPermissions they have columns for); the
    visibilities and object/field permissions are the overlay."""

    mapped = frozenset({"description", "userLicense", "custom"})

    def _full(self, name: str) -> str:
        return profile_full_name(name)

    def record(self, store: Components, full_name: str) -> dict[str, Any] | None:
        decoded = unquote(full_name).lower()
        for rec in store.org.records("Profile"):
            name = rec.get("Name") or ""
            if self._full(name).lower() == full_name.lower() or name.lower() == decoded:
                return rec
        return None

    def record_names(self, store: Components) -> list[str]:
        return [self._full(r["Name"]) for r in store.org.records("Profile") if r.get("Name")]

    def elements(self, store: Components, full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        out = [X.leaf("custom", rec.get("Name") not in PROFILE_NAMES and rec.get("Name") not in (
            "Chatter Free User", "Einstein Agent User"))]
        if rec.get("Description"):
            out.append(X.leaf("description", rec["Description"]))
        lic = store.org.get("UserLicense", rec["UserLicenseId"]) if rec.get("UserLicenseId") else None
        if lic is not None:
            out.append(X.leaf("userLicense", lic.get("Name")))
        overlay = Handler.read(self, store, full_name)
        listed = {X.text_of(u, "name") for u in X.children(overlay, "userPermissions")} if overlay is not None else set()
        out += [u for u in _user_permissions(store.org, "Profile", rec) if X.text_of(u, "name") not in listed]
        return out

    def apply(self, store: Components, full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        org = store.org
        fields: dict[str, Any] = {**_permission_values(org, "Profile", body, merge=True)}
        if text_or_none(body, "description") is not None:
            fields["Description"] = text_or_none(body, "description")
        lic_name = text_or_none(body, "userLicense")
        if lic_name:
            lic = one_record(org, "UserLicense", Name=lic_name)
            if lic is None:
                raise ComponentError(f"In field: userLicense - no UserLicense named {lic_name} found")
            fields["UserLicenseId"] = lic["Id"]
        if rec is None:
            if "UserLicenseId" not in fields:
                raise ComponentError("Required field is missing: userLicense")
            return org.insert_trusted("Profile", {**fields, "Name": unquote(full_name)}, user_id=store.user_id)
        org.update_trusted("Profile", rec["Id"], fields, user_id=store.user_id)
        return str(rec["Id"])

    def write(self, store: Components, full_name: str, body: ET.Element) -> bool:
        # a profile deploy changes what it names: settings of other tabs, objects, fields, ... stay
        old = Handler.read(self, store, full_name)
        if old is not None:
            merged = ET.Element(body.tag)
            merged.extend(body)
            given = {(c.tag, _profile_key(c)) for c in body}
            merged.extend(c for c in old if (c.tag, _profile_key(c)) not in given)
            body = merged
        return super().write(store, full_name, body)

    def remove(self, store: Components, full_name: str, rec: dict[str, Any]) -> None:
        if rec.get("Name") in PROFILE_NAMES:
            raise ComponentError(f"Cannot delete a standard profile: {full_name}")
        store.org.delete("Profile", rec["Id"])


_PROFILE_KEYS = ("application", "tab", "object", "field", "layout", "recordType", "apexClass", "apexPage", "flow",
                 "name", "startAddress")


def _profile_key(el: ET.Element) -> str:
    """What a profile setting is about (its tab, object, field, ...); the whole text for plain settings."""
    for key in _PROFILE_KEYS:
        value = X.text_of(el, key)
        if value is not None:
            return f"{key}={value}"
    return "" if len(el) else (el.text or "")


class PermissionSetGroupHandler(RecordHandler):
    """PermissionSetGroup <-> PermissionSetGroup + PermissionSetGroupComponent."""

    mapped = frozenset({"label", "description", "permissionSets", "status", "hasActivationRequired"})

    def record(self, store: Components, full_name: str) -> dict[str, Any] | None:
        return by_dev_name(store.org, "PermissionSetGroup", full_name)

    def record_names(self, store: Components) -> list[str]:
        return [r["DeveloperName"] for r in store.org.records("PermissionSetGroup") if r.get("DeveloperName")]

    def elements(self, store: Components, full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        org = store.org
        out = [X.leaf("label", rec.get("MasterLabel") or full_name),
               X.leaf("hasActivationRequired", bool(rec.get("HasActivationRequired")))]
        if rec.get("Description"):
            out.append(X.leaf("description", rec["Description"]))
        if rec.get("Status"):
            out.append(X.leaf("status", rec["Status"]))
        names = []
        for comp in org.find("PermissionSetGroupComponent", PermissionSetGroupId=rec["Id"]):
            ps = org.get("PermissionSet", comp.get("PermissionSetId") or "") if comp.get("PermissionSetId") else None
            if ps is not None:
                names.append(ps["Name"])
        out += [X.leaf("permissionSets", n) for n in sorted(names)]
        return out

    def apply(self, store: Components, full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        org = store.org
        fields: dict[str, Any] = {"MasterLabel": text_or_none(body, "label") or full_name,
                                  "Description": text_or_none(body, "description"),
                                  "HasActivationRequired": X.flag(body, "hasActivationRequired")}
        if text_or_none(body, "status"):
            fields["Status"] = text_or_none(body, "status")
        if rec is None:
            gid = org.insert_trusted("PermissionSetGroup", {**fields, "DeveloperName": full_name},
                                     user_id=store.user_id)
        else:
            gid = rec["Id"]
            org.update_trusted("PermissionSetGroup", gid, fields, user_id=store.user_id)
        wanted = []
        for el in X.children(body, "permissionSets"):
            name = (el.text or "").strip()
            ps = one_record(org, "PermissionSet", Name=name)
            if ps is None:
                raise ComponentError(f"In field: permissionSets - no PermissionSet named {name} found")
            wanted.append(ps["Id"])
        have = {c["PermissionSetId"]: c["Id"] for c in org.find("PermissionSetGroupComponent",
                                                                  PermissionSetGroupId=gid)}
        for psid in wanted:
            if psid not in have:
                org.create("PermissionSetGroupComponent", {"PermissionSetGroupId": gid, "PermissionSetId": psid},
                           user_id=store.user_id)
        for psid, cid in have.items():
            if psid not in wanted:
                org.delete("PermissionSetGroupComponent", cid)
        return str(gid)

    def remove(self, store: Components, full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("PermissionSetGroup", rec["Id"])
