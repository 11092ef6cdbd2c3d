"""Setup > Password Policies: the org's password and login policies (the ``passwordPolicies`` of the Security
settings), each a select or checkbox with Salesforce's labels; Save writes the Security settings through the
Metadata store, so ``readMetadata SecuritySettings Security`` returns what was chosen. Values the page does not
offer (a setting deployed with another value) are kept and shown as they are."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.setup_common import metadata_store, saved, setup_render
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden

PAGE = "/lightning/setup/SecurityPolicies/home"

#: passwordPolicies element -> (label, options [(value, label)]); None options: a checkbox
POLICIES: dict[str, tuple[str, list[tuple[str, str]] | None]] = {
    "expiration": ("User passwords expire in", [
        ("ThirtyDays", "30 days"), ("SixtyDays", "60 days"), ("ThreeMonths", "90 days"), ("SixMonths", "180 days"),
        ("OneYear", "One year"), ("Never", "Never expires")]),
    "historyRestriction": ("Enforce password history", [
        ("0", "No passwords remembered"), ("1", "1 password remembered"),
        *((str(n), f"{n} passwords remembered") for n in range(2, 25))]),
    "minimumPasswordLength": ("Minimum password length", [(str(n), f"{n} characters") for n in range(5, 51)]),
    "complexity": ("Password complexity requirement", [
        ("NoRestriction", "No restriction"), ("AlphaNumeric", "Must include alpha and numeric characters"),
        ("SpecialCharacters", "Must include alpha, numeric, and special characters"),
        ("UpperLowerCaseNumeric", "Must include numbers and uppercase and lowercase letters"),
        ("UpperLowerCaseNumericSpecialCharacters",
         "Must include numbers, uppercase and lowercase letters, and special characters"),
        ("Any3UpperLowerCaseNumericSpecialCharacters",
         "Must include 3 of the following: numbers, uppercase letters, lowercase letters, special characters")]),
    "questionRestriction": ("Password question requirement", [
        ("None", "None"), ("DoesNotContainPassword", "Cannot contain password")]),
    "maxLoginAttempts": ("Maximum invalid login attempts", [
        ("ThreeAttempts", "3"), ("FiveAttempts", "5"), ("TenAttempts", "10"), ("NoLimit", "No limit")]),
    "lockoutInterval": ("Lockout effective period", [
        ("FifteenMinutes", "15 minutes"), ("ThirtyMinutes", "30 minutes"), ("SixtyMinutes", "60 minutes"),
        ("Forever", "Forever (must be reset by admin)")]),
    "obscureSecretAnswer": ("Obscure secret answer for password resets", None),
    "minimumPasswordLifetime": ("Require a minimum 1 day password lifetime", None),
}


def _policies(body: ET.Element | None) -> ET.Element:
    found = body.find("passwordPolicies") if body is not None else None
    return found if found is not None else ET.Element("passwordPolicies")


def password_policies(ctx: RequestContext) -> Response:
    """``/lightning/setup/SecurityPolicies/home``: Password Policies, Save / Cancel."""
    store = metadata_store(ctx)
    body = store.read("SecuritySettings", "Security")
    current = {c.tag: c.text or "" for c in _policies(body)}
    vals = {key: current.get(key, "") for key in POLICIES}
    errors = FormErrors()
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        for key, (label, options) in POLICIES.items():
            if options is None:
                vals[key] = "true" if form.get(key) is not None else "false"
                continue
            vals[key] = form.get(key) or ""
            allowed = {v for v, _ in options} | ({current[key]} if current.get(key) else set())
            if vals[key] not in allowed:
                errors.add("Choose one of the listed values.", key, label)
        if not errors:
            policies = _policies(body)
            merged = ET.Element("passwordPolicies")
            merged.extend(X.leaf(c.tag, vals[c.tag]) if c.tag in vals else c for c in policies)
            merged.extend(X.leaf(k, v) for k, v in vals.items() if policies.find(k) is None and v)
            out = ET.Element("SecuritySettings")
            out.extend(c for c in (body if body is not None else []) if c.tag != "passwordPolicies")
            out.append(X.sorted_children(merged))
            done = saved(errors, lambda: store.write("SecuritySettings", "Security", X.sorted_children(out)), PAGE,
                         "Password policies were saved.")
            if done is not None:
                return done
    inputs: list[dict[str, Any]] = []
    for key, (label, options) in POLICIES.items():
        if options is None:
            inputs.append({"kind": "checkbox", "name": key, "label": label, "value": vals[key] == "true"})
        else:
            shown = list(options)
            if vals[key] and vals[key] not in {v for v, _ in options}:
                shown.append((vals[key], vals[key]))  # a deployed value the page does not offer stays as it is
            inputs.append({"kind": "select", "name": key, "label": label, "value": vals[key], "options": shown})
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="Password Policies",
                        heading="Password Policies", kicker="Security", errors=errors, action=PAGE, cancel=PAGE,
                        inputs=inputs, buttons=[{"label": "Save", "brand": True}])


def register(app: OrgApp) -> None:
    """Add the Password Policies route."""
    app.add_route(PAGE, password_policies, ["GET", "POST"], auth="ui", endpoint="ui.password_policies")
