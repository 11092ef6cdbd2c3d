"""The Metadata API of the embedded org: a metadata store over the org's records, schema and documents, zip
packages and the SOAP endpoint.

Modules, bottom first (each imports only those above it):

- ``xmltree`` (XML helpers), ``types`` (the metadata types: ``TYPES``), ``columns`` (list view column names);
- ``base``: the shared base of every handler module (``ComponentError``, ``Document``, ``FileProps``,
  ``Components`` (what a handler sees of the store), ``Handler``, ``RecordHandler``, ``ParentHandler``);
- handler modules: ``conversion`` (schema <-> CustomField/CustomObject XML), ``objects`` (CustomObject,
  CustomField, StandardValueSet; ``STANDARD_VALUE_SETS``), ``groups`` (Queue, Group, Role), ``object_rules``
  (ListView, ValidationRule, AssignmentRules), ``permissions`` (PermissionSet, Profile, PermissionSetGroup;
  ``profile_full_name``);
- ``components``: ``MetadataStore`` (the registry: type -> handler) and ``record_residue``; it re-exports the
  names that lived there before the split (``ComponentError``, ``FileProps``, ``Handler``, ``profile_full_name``);
- ``standard_apps`` (the standard Lightning apps), ``packages`` (zip packages: ``build_zip``, ``package_xml``,
  ``deploy``, ``DeployOptions``), ``endpoint`` (the SOAP endpoint ``/services/Soap/m``).

``register(app)`` adds ``/services/Soap/m/NN.N`` (with its error renderer: the app's own errors there are
Metadata API faults), subscribes ``record_residue`` to the store's residue event and installs the components every
org starts with (the security and territory settings; the Case and Lead assignment rules files exist empty,
``AssignmentRulesHandler``); ``OrgServer`` calls it. In process: ``MetadataStore(org).read("Queue", "Billing_Desk")``.

May import: the org's data modules (``store``, ``schema``, ``values``, ``errors``, ``behaviors``), ``app`` and ``soap``
(the endpoint only); never ``server``, the UI or anything outside ``pytest_cua.orgs.localorg``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_cua.orgs.localorg.metadata.components import ComponentError, FileProps, MetadataStore
from pytest_cua.orgs.localorg.metadata.xmltree import parse

if TYPE_CHECKING:
    from pytest_cua.orgs.localorg.app import OrgApp
    from pytest_cua.orgs.localorg.metadata.endpoint import MetadataService
    from pytest_cua.orgs.localorg.store import Org

__all__ = ["ComponentError", "FileProps", "MetadataStore", "install_defaults", "register"]

_DEFAULTS = {
    ("Settings", "Security"): """<SecuritySettings>
  <passwordPolicies>
    <apiOnlyUserHomePageURL></apiOnlyUserHomePageURL>
    <complexity>AlphaNumeric</complexity>
    <enableSetPasswordInApi>false</enableSetPasswordInApi>
    <expiration>OneHundredEightyDays</expiration>
    <historyRestriction>3</historyRestriction>
    <lockoutInterval>FifteenMinutes</lockoutInterval>
    <maxLoginAttempts>TenAttempts</maxLoginAttempts>
    <minimumPasswordLength>8</minimumPasswordLength>
    <minimumPasswordLifetime>false</minimumPasswordLifetime>
    <obscureSecretAnswer>false</obscureSecretAnswer>
    <passwordAssistanceMessage></passwordAssistanceMessage>
    <passwordAssistanceURL></passwordAssistanceURL>
    <questionRestriction>DoesNotContainPassword</questionRestriction>
  </passwordPolicies>
  <sessionSettings>
    <forceLogoutOnSessionTimeout>false</forceLogoutOnSessionTimeout>
    <lockSessionsToIp>false</lockSessionsToIp>
    <sessionTimeout>TwoHours</sessionTimeout>
  </sessionSettings>
</SecuritySettings>""",
    # every org has Enterprise Territory Management's settings, off until enabled
    ("Settings", "Territory2"): """<Territory2Settings>
  <enableTerritoryManagement2>false</enableTerritoryManagement2>
</Territory2Settings>""",
}


def install_defaults(org: "Org") -> None:
    """Put the components every org has into ``org`` (once; before the baseline snapshot is taken)."""
    store = MetadataStore(org)
    for (type_name, full_name), text in _DEFAULTS.items():
        if store.read(type_name, full_name) is None:
            store.write(type_name, full_name, parse(text, f"default {type_name} {full_name}"))
    from pytest_cua.orgs.localorg.metadata import standard_apps

    standard_apps.install(store)


def register(app: "OrgApp") -> "MetadataService":
    """Add the Metadata API's SOAP routes to ``app`` and install the default components."""
    from pytest_cua.orgs.localorg.metadata import endpoint

    from pytest_cua.orgs.localorg.metadata.components import record_residue

    install_defaults(app.org)
    if record_residue not in app.org.hooks.residue:
        app.org.hooks.residue.append(record_residue)
    return endpoint.register(app)
