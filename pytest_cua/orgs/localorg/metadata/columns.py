"""List-view column names: how the Metadata API names a field in a ListView's ``columns`` and filter ``field``.

The org keeps a list view's columns and filters with field API names (``StageName``), as its UI and REST
write them. The Metadata API speaks Salesforce's column names instead: ``OPPORTUNITY.STAGE_NAME``,
``ACCOUNT.NAME`` for an opportunity's account, ``CORE.USERS.ALIAS`` for the owner, ``CASES.PRIORITY``; a
custom field by its API name (``Active__c``); a custom object's own standard fields without a prefix (``NAME``,
``CREATED_DATE``, ``OWNER.ALIAS``). ``column_name`` writes them on retrieve and read; ``field_name`` reads a
column name (or an API name, in any letter case) back on deploy. The names are Salesforce's where they are
documented or appear in SCUBA's release (its ground truths and prerequisites); a standard field not in the
table gets ``<OBJECT PREFIX>.<FIELD IN UPPER SNAKE CASE>``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_cua.orgs.localorg.schema import ObjectSchema

# object -> the prefix of its own standard fields' columns
PREFIXES = {"Account": "ACCOUNT", "Opportunity": "OPPORTUNITY", "Case": "CASES", "Lead": "LEAD",
            "Contact": "CONTACT", "Campaign": "CAMPAIGN", "Contract": "CONTRACT", "Order": "ORDERS",
            "Product2": "PRODUCT2", "Quote": "QUOTE", "User": "USERS"}
# (object or "*", field) -> column, where the rule above does not give Salesforce's name
SPECIAL = {
    ("*", "OwnerId"): "CORE.USERS.ALIAS",
    ("Account", "BillingState"): "ACCOUNT.ADDRESS1_STATE_CODE", ("Account", "BillingCity"): "ACCOUNT.ADDRESS1_CITY",
    ("Account", "BillingCountry"): "ACCOUNT.ADDRESS1_COUNTRY_CODE",
    ("Account", "BillingPostalCode"): "ACCOUNT.ADDRESS1_ZIP", ("Account", "Phone"): "ACCOUNT.PHONE1",
    ("Account", "NumberOfEmployees"): "ACCOUNT.EMPLOYEES",
    ("Opportunity", "AccountId"): "ACCOUNT.NAME", ("Contact", "AccountId"): "ACCOUNT.NAME",
    ("Case", "AccountId"): "ACCOUNT.NAME", ("Case", "ContactId"): "NAME",
    ("Contact", "Name"): "FULL_NAME", ("Lead", "Name"): "FULL_NAME",
    ("Contact", "Title"): "TITLE", ("Contact", "LeadSource"): "LEAD_SOURCE", ("Contact", "Phone"): "CONTACT.PHONE1",
    ("Case", "IsClosed"): "CASES.CLOSED", ("Lead", "IsConverted"): "LEAD.CONVERTED",
    ("Opportunity", "IsClosed"): "OPPORTUNITY.CLOSED", ("Opportunity", "IsWon"): "OPPORTUNITY.WON",
    ("Task", "ActivityDate"): "DUE_DATE", ("Event", "ActivityDate"): "DUE_DATE",
    ("Order", "OrderNumber"): "ORDERS.ORDER_NUMBER", ("Order", "EffectiveDate"): "ORDERS.EFFECTIVE_DATE",
}
# other names Salesforce accepts for a field on deploy (column -> field)
ALIASES = {("Account", "ACCOUNT.ADDRESS1_STATE"): "BillingState",
           ("Account", "ACCOUNT.ADDRESS1_COUNTRY"): "BillingCountry", ("*", "OWNER.ALIAS"): "OwnerId",
           ("*", "OWNER"): "OwnerId", ("*", "CORE.USERS.FULL_NAME"): "OwnerId",
           ("*", "CORE.USERS.ALIAS"): "OwnerId"}  # the owner's column on objects whose own is OWNER.ALIAS


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


def column_name(obj: "ObjectSchema", field: str) -> str:
    """The column name of ``field`` (an API name) of ``obj``; anything that is not one of its fields unchanged
    (a column name already, as a deploy may have stored it)."""
    f = obj.field(field)
    if f is None:
        return field
    special = SPECIAL.get((obj.name, f.name)) or SPECIAL.get(("*", f.name))
    if special:
        return special if obj.name in PREFIXES or not special.startswith("CORE.") else "OWNER.ALIAS"
    if f.name.endswith("__c"):
        return f.name
    prefix = PREFIXES.get(obj.name)
    column = _snake(f.name[:-2] + "Name" if f.name.endswith("Id") and f.type == "reference" else f.name)
    return f"{prefix}.{column}" if prefix else column


def field_name(obj: "ObjectSchema", column: str) -> str | None:
    """The field API name behind ``column`` (a column name, an API name in any case, ``Object.Field__c``);
    None when it names none of ``obj``'s fields."""
    text = column.strip()
    direct = obj.field(text)
    if direct is not None:
        return direct.name
    for f in obj.fields.values():  # the column each field has (SPECIAL's names included)
        if column_name(obj, f.name).upper() == text.upper():
            return f.name
    for (holder, name), field in ALIASES.items():
        alias = obj.field(field) if holder in (obj.name, "*") and name.upper() == text.upper() else None
        if alias is not None:
            return alias.name
    tail = text.rsplit(".", 1)[-1]
    found = obj.field(tail) or obj.field(tail.replace("_", ""))
    return found.name if found is not None else None
