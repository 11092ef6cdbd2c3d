"""Queues, public groups and roles: metadata types held as records (Group of type Queue with its QueueSobject and
GroupMember rows; Group of type Regular; UserRole)."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.base import ComponentError, Components, RecordHandler, by_dev_name, \
    one_record, text_or_none
from pytest_cua.orgs.localorg.store import Org

class QueueHandler(RecordHandler):
    """Queue <-> Group (Type Queue) + QueueSobject + GroupMember."""

    mapped = frozenset({"name", "email", "doesSendEmailToMembers", "queueSobject", "queueMembers"})

    def record(self, store: Components, full_name: str) -> dict[str, Any] | None:
        return by_dev_name(store.org, "Group", full_name, Type="Queue")

    def record_names(self, store: Components) -> list[str]:
        return [r["DeveloperName"] for r in store.org.find("Group", Type="Queue") if r.get("DeveloperName")]

    def elements(self, store: Components, full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        org = store.org
        out = [X.leaf("doesSendEmailToMembers", bool(rec.get("DoesSendEmailToMembers"))), X.leaf("name", rec["Name"])]
        if rec.get("Email"):
            out.append(X.leaf("email", rec["Email"]))
        members = _members_element(org, rec["Id"], "queueMembers")
        if members is not None:
            out.append(members)
        for qs in sorted(org.find("QueueSobject", QueueId=rec["Id"]), key=lambda r: r.get("SobjectType") or ""):
            out.append(X.element("queueSobject", [X.leaf("sobjectType", qs["SobjectType"])]))
        return out

    def apply(self, store: Components, full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        org = store.org
        fields = {"Name": text_or_none(body, "name") or full_name, "Email": text_or_none(body, "email"),
                  "DoesSendEmailToMembers": X.flag(body, "doesSendEmailToMembers")}
        if rec is None:
            gid = org.insert_trusted("Group", {**fields, "DeveloperName": full_name, "Type": "Queue"},
                                     user_id=store.user_id)
        else:
            gid = rec["Id"]
            org.update_trusted("Group", gid, fields, user_id=store.user_id)
        wanted = [X.text_of(q, "sobjectType") or "" for q in X.children(body, "queueSobject")]
        have = {r["SobjectType"]: r["Id"] for r in org.find("QueueSobject", QueueId=gid)}
        for name in wanted:
            if name not in have:
                org.create("QueueSobject", {"QueueId": gid, "SobjectType": name}, user_id=store.user_id)
        for name, rid in have.items():
            if name not in wanted:
                org.delete("QueueSobject", rid)
        members = X.children(body, "queueMembers")
        _set_members(org, gid, members[0] if members else None, store.user_id)
        return gid

    def remove(self, store: Components, full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("Group", rec["Id"])


def _members_element(org: Org, group_id: str, tag: str) -> ET.Element | None:
    users, groups, roles = [], [], []
    for gm in org.find("GroupMember", GroupId=group_id):
        found = org.find_record(gm.get("UserOrGroupId") or "")
        if found is None:
            continue
        name, target = found
        if name == "User":
            users.append(target.get("Username") or target["Id"])
        elif target.get("Type") == "Role":
            role = org.get("UserRole", target.get("RelatedId") or "") if target.get("RelatedId") else None
            roles.append((role or target).get("DeveloperName") or target["Id"])
        else:
            groups.append(target.get("DeveloperName") or target["Id"])
    if not (users or groups or roles):
        return None
    parts = []
    if groups:
        parts.append(X.element("publicGroups", [X.leaf("publicGroup", g) for g in sorted(groups)]))
    if roles:
        parts.append(X.element("roles", [X.leaf("role", r) for r in sorted(roles)]))
    if users:
        parts.append(X.element("users", [X.leaf("user", u) for u in sorted(users)]))
    return X.element(tag, parts)


def _set_members(org: Org, group_id: str, members: ET.Element | None, user_id: str | None) -> None:
    wanted: list[str] = []
    if members is not None:
        for users in X.children(members, "users"):
            for u in X.children(users, "user"):
                name = (u.text or "").strip()
                hits = org.find("User", Username=name)
                if not hits:
                    raise ComponentError(f"In field: user - no User named {name} found")
                wanted.append(hits[0]["Id"])
        for groups in X.children(members, "publicGroups"):
            for g in X.children(groups, "publicGroup"):
                grp = by_dev_name(org, "Group", (g.text or "").strip(), Type="Regular")
                if grp is None:
                    raise ComponentError(f"In field: publicGroup - no Group named {g.text} found")
                wanted.append(grp["Id"])
        for roles in X.children(members, "roles"):
            for r in X.children(roles, "role"):
                role = by_dev_name(org, "UserRole", (r.text or "").strip())
                grp = one_record(org, "Group", Type="Role", RelatedId=role["Id"]) if role else None
                if grp is None:
                    raise ComponentError(f"In field: role - no Role named {r.text} found")
                wanted.append(grp["Id"])
    have = {m["UserOrGroupId"]: m["Id"] for m in org.find("GroupMember", GroupId=group_id)}
    for target in wanted:
        if target not in have:
            org.create("GroupMember", {"GroupId": group_id, "UserOrGroupId": target}, user_id=user_id)
    for target, mid in have.items():
        if target not in wanted:
            org.delete("GroupMember", mid)


class GroupHandler(RecordHandler):
    """Group (public group) <-> Group of type Regular."""

    mapped = frozenset({"name", "doesIncludeBosses"})

    def record(self, store: Components, full_name: str) -> dict[str, Any] | None:
        return by_dev_name(store.org, "Group", full_name, Type="Regular")

    def record_names(self, store: Components) -> list[str]:
        return [r["DeveloperName"] for r in store.org.find("Group", Type="Regular") if r.get("DeveloperName")]

    def elements(self, store: Components, full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        return [X.leaf("doesIncludeBosses", bool(rec.get("DoesIncludeBosses"))), X.leaf("name", rec["Name"])]

    def apply(self, store: Components, full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        fields = {"Name": text_or_none(body, "name") or full_name, "DoesIncludeBosses": X.flag(body, "doesIncludeBosses")}
        if rec is None:
            return store.org.insert_trusted("Group", {**fields, "DeveloperName": full_name, "Type": "Regular"},
                                            user_id=store.user_id)
        store.org.update_trusted("Group", rec["Id"], fields, user_id=store.user_id)
        return str(rec["Id"])

    def remove(self, store: Components, full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("Group", rec["Id"])


class RoleHandler(RecordHandler):
    """Role <-> UserRole."""

    mapped = frozenset({"name", "parentRole", "description", "caseAccessLevel", "contactAccessLevel",
                        "opportunityAccessLevel"})
    _ACCESS = {"caseAccessLevel": "CaseAccessForAccountOwner", "contactAccessLevel": "ContactAccessForAccountOwner",
               "opportunityAccessLevel": "OpportunityAccessForAccountOwner"}

    def record(self, store: Components, full_name: str) -> dict[str, Any] | None:
        return by_dev_name(store.org, "UserRole", full_name)

    def record_names(self, store: Components) -> list[str]:
        return [r["DeveloperName"] for r in store.org.records("UserRole") if r.get("DeveloperName")]

    def elements(self, store: Components, full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        out = [X.leaf("name", rec["Name"])]
        if rec.get("ParentRoleId"):
            parent = store.org.get("UserRole", rec["ParentRoleId"])
            if parent is not None:
                out.append(X.leaf("parentRole", parent.get("DeveloperName")))
        if rec.get("RollupDescription"):
            out.append(X.leaf("description", rec["RollupDescription"]))
        for tag, fname in self._ACCESS.items():
            if rec.get(fname):
                out.append(X.leaf(tag, rec[fname]))
        return out

    def apply(self, store: Components, full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        org = store.org
        fields: dict[str, Any] = {"Name": text_or_none(body, "name") or full_name,
                                  "RollupDescription": text_or_none(body, "description")}
        parent = text_or_none(body, "parentRole")
        if parent:
            prec = by_dev_name(org, "UserRole", parent)
            if prec is None:
                raise ComponentError(f"In field: parentRole - no Role named {parent} found")
            fields["ParentRoleId"] = prec["Id"]
        else:
            fields["ParentRoleId"] = None
        for tag, fname in self._ACCESS.items():
            if text_or_none(body, tag) and org.schema["UserRole"].field(fname) is not None:
                fields[fname] = text_or_none(body, tag)
        if rec is None:
            return org.insert_trusted("UserRole", {**fields, "DeveloperName": full_name}, user_id=store.user_id)
        org.update_trusted("UserRole", rec["Id"], fields, user_id=store.user_id)
        return str(rec["Id"])

    def remove(self, store: Components, full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("UserRole", rec["Id"])
