"""The metadata store in process: record-backed types, schema changes, snapshots and the retrieve filters."""

from __future__ import annotations

import pytest

from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.metadata import ComponentError, MetadataStore, install_defaults, parse
from pytest_cua.orgs.localorg.metadata.components import record_residue
from pytest_cua.orgs.localorg.metadata.packages import DeployOptions, build_zip, deploy, read_zip, retrieve
from pytest_cua.orgs.localorg.store import Org

MD = "http://soap.sforce.com/2006/04/metadata"


def _el(root: str, inner: str):  # type: ignore[no-untyped-def]
    return parse(f'<{root} xmlns="{MD}">{inner}</{root}>', "test")


@pytest.fixture
def store(org: Org) -> MetadataStore:
    install_defaults(org)
    if record_residue not in org.residue_hooks:
        org.residue_hooks.append(record_residue)
    return MetadataStore(org)


def test_custom_field_on_a_standard_object_and_its_removal(org: Org, store: MetadataStore) -> None:
    snap = org.snapshot()
    assert store.write("CustomField", "Account.Tier__c", _el("CustomField", "<label>Tier</label><type>Text</type>"
                                                                            "<length>20</length>")) == "created"
    acc = org.records("Account")[0]["Id"]
    org.update("Account", acc, {"Tier__c": "Gold"})
    assert org.query(f"SELECT Tier__c FROM Account WHERE Id = '{acc}'")["records"][0]["Tier__c"] == "Gold"
    assert "Schema field Account.Tier__c created" in org.residue(snap)
    store.delete("CustomField", "Account.Tier__c")
    assert org.schema["Account"].field("Tier__c") is None and "Tier__c" not in org.get("Account", acc)  # type: ignore[operator]
    with pytest.raises(OrgError, match="INVALID_FIELD|No such column"):
        org.query("SELECT Tier__c FROM Account")
    with pytest.raises(ComponentError, match="Cannot create a standard field"):
        store.write("CustomField", "Account.Tier", _el("CustomField", "<label>Tier</label><type>Text</type>"))


def test_scoped_restore_still_rolls_back_metadata_and_schema(org: Org, store: MetadataStore) -> None:
    snap = org.snapshot()
    store.write("CustomObject", "Widget__c", _el("CustomObject", "<label>Widget</label><pluralLabel>Widgets"
                                                                 "</pluralLabel><sharingModel>Private</sharingModel>"))
    org.create("Widget__c", {"Name": "W"})
    store.write("GlobalValueSet", "Sizes", _el("GlobalValueSet", "<masterLabel>Sizes</masterLabel>"))
    org.restore(snap, scope=["Lead", "Widget__c"])
    assert "Widget__c" not in org.schema and ("GlobalValueSet", "Sizes") not in org.metadata
    assert org.residue(snap) == []


def test_standard_value_set_changes_the_picklists_that_share_it(org: Org, store: MetadataStore) -> None:
    body = store.read("StandardValueSet", "Industry")
    assert body is not None and "Technology" in [v.findtext("fullName") for v in body.findall("standardValue")]
    store.write("StandardValueSet", "Industry", _el("StandardValueSet", "<sorted>false</sorted><standardValue>"
                                                    "<fullName>Robotics</fullName><default>true</default><label>Robotics"
                                                    "</label></standardValue>"))
    for obj in ("Account", "Lead"):
        f = org.schema[obj].field("Industry")
        assert f is not None and f.values == ["Robotics"] and f.default == "Robotics"


def test_queue_members_and_a_failed_write_leave_nothing(org: Org, store: MetadataStore) -> None:
    snap = org.snapshot()
    user = org.find("User", IsActive=True)[0]["Username"]
    store.write("Queue", "Returns", _el("Queue", f"<name>Returns</name><queueMembers><users><user>{user}</user>"
                                                 "</users></queueMembers><queueSobject><sobjectType>Case</sobjectType>"
                                                 "</queueSobject>"))
    read = store.read("Queue", "Returns")
    assert read is not None and read.findtext("queueMembers/users/user") == user
    assert "Metadata Queue 'Returns' created" in org.residue(snap)
    with pytest.raises(ComponentError, match="no User named nobody@example.com"):
        store.write("Queue", "Broken", _el("Queue", "<name>Broken</name><queueMembers><users><user>"
                                                    "nobody@example.com</user></users></queueMembers>"))
    assert org.find("Group", DeveloperName="Broken") == []  # the write was atomic


def test_profile_retrieve_keeps_only_the_visibilities_of_what_is_retrieved(org: Org, store: MetadataStore) -> None:
    store.write("CustomTab", "Gizmo__c", _el("CustomTab", "<customObject>true</customObject><motif>Custom1</motif>"))
    store.write("Profile", "Admin", _el("Profile", "<tabVisibilities><tab>Gizmo__c</tab><visibility>DefaultOn"
                                                   "</visibility></tabVisibilities><tabVisibilities><tab>Other__c</tab>"
                                                   "<visibility>Hidden</visibility></tabVisibilities>"))
    out = retrieve(store, {"Profile": ["*"], "CustomTab": ["Gizmo__c"]}, "59.0", True)
    files = read_zip(out.zip_bytes)
    admin = parse(files["profiles/Admin.profile"], "Admin.profile")
    assert [t.findtext("tab") for t in admin.findall("tabVisibilities")] == ["Gizmo__c"]
    assert "tabs/Gizmo__c.tab" in files and admin.findtext("userLicense") == "Salesforce"
    assert admin.find("userPermissions") is not None  # always kept


def test_deploy_destructive_pre_and_missing_members(org: Org, store: MetadataStore) -> None:
    pkg = f'<Package xmlns="{MD}"><types><members>Sizes</members><name>GlobalValueSet</name></types></Package>'
    pre = f'<Package xmlns="{MD}"><types><members>Nope</members><name>CustomTab</name></types></Package>'
    files = {"package.xml": pkg, "destructiveChanges.xml": pre,
             "globalValueSets/Sizes.globalValueSet": f'<GlobalValueSet xmlns="{MD}"><masterLabel>S</masterLabel>'
                                                     "</GlobalValueSet>"}
    strict = deploy(store, build_zip(files), DeployOptions())
    assert strict.status == "Failed" and ("GlobalValueSet", "Sizes") not in org.metadata
    assert [m.problem for m in strict.messages if not m.success] == ["No CustomTab named: Nope found"]
    lenient = deploy(store, build_zip(files), DeployOptions(ignore_warnings=True))
    assert lenient.status == "Succeeded" and ("GlobalValueSet", "Sizes") in org.metadata
