"""The labels Salesforce's standard page layouts give fields whose API label (what ``describe`` says) is not
what a person reads on the record's page and in its New and Edit dialogs: the owner is "Account Owner" on an
account and "Assigned To" on a task, a task's ActivityDate is "Due Date", an event's StartDateTime is "Start".

The embedded org's pages show these labels, and the suites' demonstrations look fields up by them, so that a
demonstration finds the same control on the embedded org and on a real org. ``LAYOUT_HIDDEN`` are the fields
Salesforce's standard layouts leave out of the New and Edit dialogs although they can be written (an event's
ActivityDateTime, ActivityDate and DurationInMinutes: Salesforce derives them from Start and End).
"""

from __future__ import annotations

#: (object, field) -> the standard layout's label, where it differs from the API label
LAYOUT_LABELS: dict[tuple[str, str], str] = {
    ("Task", "OwnerId"): "Assigned To",
    ("Task", "ActivityDate"): "Due Date",
    ("Task", "WhoId"): "Name",
    ("Task", "Description"): "Comments",
    ("Event", "OwnerId"): "Assigned To",
    ("Event", "WhoId"): "Name",
    ("Event", "StartDateTime"): "Start",
    ("Event", "EndDateTime"): "End",
    ("Event", "IsAllDayEvent"): "All-Day Event",
    ("Event", "ShowAs"): "Show Time As",
}

#: object -> fields the standard layout's New and Edit dialogs do not show
LAYOUT_HIDDEN: dict[str, frozenset[str]] = {
    "Event": frozenset({"ActivityDateTime", "ActivityDate", "DurationInMinutes"}),
}


def layout_label(object_name: str, object_label: str, field_name: str, api_label: str) -> str:
    """The label a record page and its dialogs show for ``object_name.field_name`` (API label ``api_label``):
    the owner is "<Object> Owner" on a standard object and "Owner" on a custom one, unless ``LAYOUT_LABELS``
    names another."""
    named = LAYOUT_LABELS.get((object_name, field_name))
    if named is not None:
        return named
    if field_name == "OwnerId":
        return "Owner" if object_name.endswith("__c") else f"{object_label} Owner"
    return api_label
