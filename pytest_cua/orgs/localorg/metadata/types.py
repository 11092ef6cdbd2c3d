"""The metadata types the org knows: what ``describeMetadata`` reports and where each type lives in a package.

A top-level type has a folder (``directoryName``) and a file suffix (``objects/Account.object``); folder types
(Report, Dashboard, EmailTemplate, Document) keep their components in folders
(``reports/unfiled$public/My_Report.report``); child types live inside their parent's file
(CustomField as ``<fields>`` of ``objects/Account.object``, fullName ``Account.Rating__c``). ``Settings`` is one
package type whose members name the settings (``Security`` -> ``settings/Security.settings`` holding a
``SecuritySettings`` element).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TypeInfo:
    """One metadata type."""

    name: str
    directory: str = ""
    suffix: str = ""
    in_folder: bool = False
    meta_file: bool = False
    children: dict[str, str] = field(default_factory=dict)  # element name in the parent file -> child type
    parent: str | None = None  # for child types: the type whose file holds them

    @property
    def child_element(self) -> str:
        """The element name of a child type inside its parent's file (``fields`` for CustomField)."""
        if self.parent is None:
            return ""
        for tag, child in TYPES[self.parent].children.items():
            if child == self.name:
                return tag
        return ""


def _top(name: str, directory: str, suffix: str, **kw: object) -> TypeInfo:
    return TypeInfo(name, directory, suffix, **kw)  # type: ignore[arg-type]


_OBJECT_CHILDREN = {
    "fields": "CustomField", "listViews": "ListView", "validationRules": "ValidationRule",
    "businessProcesses": "BusinessProcess", "recordTypes": "RecordType", "webLinks": "WebLink",
    "compactLayouts": "CompactLayout", "fieldSets": "FieldSet", "sharingReasons": "SharingReason",
    "indexes": "Index",
}
_WORKFLOW_CHILDREN = {
    "alerts": "WorkflowAlert", "fieldUpdates": "WorkflowFieldUpdate", "knowledgePublishes": "WorkflowKnowledgePublish",
    "outboundMessages": "WorkflowOutboundMessage", "rules": "WorkflowRule", "tasks": "WorkflowTask",
}
_SHARING_CHILDREN = {"sharingCriteriaRules": "SharingCriteriaRule", "sharingOwnerRules": "SharingOwnerRule"}

_TOP = [
    _top("CustomObject", "objects", "object", children=_OBJECT_CHILDREN),
    _top("CustomTab", "tabs", "tab"),
    _top("CustomApplication", "applications", "app"),
    _top("Profile", "profiles", "profile"),
    _top("PermissionSet", "permissionsets", "permissionset"),
    _top("PermissionSetGroup", "permissionsetgroups", "permissionsetgroup"),
    _top("MutingPermissionSet", "mutingpermissionsets", "mutingpermissionset"),
    _top("Queue", "queues", "queue"),
    _top("Group", "groups", "group"),
    _top("Role", "roles", "role"),
    _top("GlobalValueSet", "globalValueSets", "globalValueSet"),
    _top("StandardValueSet", "standardValueSets", "standardValueSet"),
    _top("Settings", "settings", "settings"),
    _top("MatchingRules", "matchingRules", "matchingRule", children={"matchingRules": "MatchingRule"}),
    _top("DuplicateRule", "duplicateRules", "duplicateRule"),
    _top("ApprovalProcess", "approvalProcesses", "approvalProcess"),
    _top("Workflow", "workflows", "workflow", children=_WORKFLOW_CHILDREN),
    _top("AssignmentRules", "assignmentRules", "assignmentRules", children={"assignmentRule": "AssignmentRule"}),
    _top("AutoResponseRules", "autoResponseRules", "autoResponseRules",
         children={"autoResponseRule": "AutoResponseRule"}),
    _top("EscalationRules", "escalationRules", "escalationRules", children={"escalationRule": "EscalationRule"}),
    _top("SharingRules", "sharingRules", "sharingRules", children=_SHARING_CHILDREN),
    _top("EntitlementProcess", "entitlementProcesses", "entitlementProcess"),
    _top("MilestoneType", "milestoneTypes", "milestoneType"),
    _top("FlexiPage", "flexipages", "flexipage"),
    _top("Layout", "layouts", "layout"),
    _top("Flow", "flows", "flow"),
    _top("Report", "reports", "report", in_folder=True),
    _top("Dashboard", "dashboards", "dashboard", in_folder=True),
    _top("ReportType", "reportTypes", "reportType"),
    _top("Territory2Model", "territory2Models", "territory2Model"),
    _top("Territory2Type", "territory2Types", "territory2Type"),
    _top("CustomLabels", "labels", "labels", children={"labels": "CustomLabel"}),
    _top("CustomPermission", "customPermissions", "customPermission"),
    _top("QuickAction", "quickActions", "quickAction"),
    _top("PathAssistant", "pathAssistants", "pathAssistant"),
    _top("Bot", "bots", "bot"),
    _top("GenAiPromptTemplate", "genAiPromptTemplates", "genAiPromptTemplate"),
    _top("GenAiPlugin", "genAiPlugins", "genAiPlugin"),
    _top("Skill", "skills", "skill"),
    _top("ServiceChannel", "serviceChannels", "serviceChannel"),
    _top("RoutingConfiguration", "routingConfigurations", "routingConfiguration"),
]
TYPES: dict[str, TypeInfo] = {t.name: t for t in _TOP if t.directory}
for _parent in _TOP:
    for _tag, _child in _parent.children.items():
        TYPES[_child] = TypeInfo(_child, parent=_parent.name)

#: folder types of the in-folder types (``ReportFolder`` holds reports)
FOLDER_TYPES = {"ReportFolder": "Report", "DashboardFolder": "Dashboard"}

_LOWER = {name.lower(): name for name in TYPES}


def type_info(name: str) -> TypeInfo | None:
    """The type called ``name`` (any letter case), or None. ``SecuritySettings`` and the other ``<X>Settings``
    names are the ``Settings`` type."""
    canonical = _LOWER.get(name.lower())
    if canonical:
        return TYPES[canonical]
    if name.endswith("Settings") and len(name) > len("Settings"):
        return TYPES["Settings"]
    return None


def settings_member(type_name: str, full_name: str) -> tuple[str, str]:
    """``("SecuritySettings", "Security")`` and ``("Settings", "Security")`` -> ``("Settings", "Security")``."""
    if type_name != "Settings" and type_name.lower().endswith("settings"):
        return "Settings", type_name[: -len("Settings")]
    return "Settings", full_name


def root_tag(type_name: str, full_name: str) -> str:
    """The root element of a component's file (``SecuritySettings`` for the Settings member ``Security``)."""
    if type_name == "Settings":
        return f"{full_name}Settings"
    info = TYPES.get(type_name)
    if info is not None and info.in_folder and "/" not in full_name:
        return f"{type_name}Folder"
    return type_name


def file_name(info: TypeInfo, full_name: str) -> str:
    """The path of a top-level component in a package (``objects/Account.object``)."""
    return f"{info.directory}/{full_name}.{info.suffix}" if info.suffix else f"{info.directory}/{full_name}"
