"""Lead conversion: ``/lightning/r/Lead/{Id}/convert`` (the form and the conversion through the store's
``convert_lead``) and ``/lightning/r/Lead/{Id}/converted`` (what it produced)."""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui.forms import FormErrors, resolve_lookup
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, redirect, render


def converted_statuses(ctx: RequestContext) -> list[str]:
    """The lead statuses that mean "converted" (Salesforce offers only those on conversion)."""
    values = ctx.org.object("Lead").fields["Status"].values
    hits = [v for v in values if "converted" in v.lower() and "not converted" not in v.lower()]
    return hits or list(values)


def _lookup(ctx: RequestContext, sobject: str, field: str, text: str, errors: FormErrors, key: str,
            label: str) -> str | None:
    f = ctx.org.object(sobject).fields[field]
    try:
        return resolve_lookup(ctx.org, f, text)
    except OrgError as err:
        errors.add(err.message, key, label)
        return None


def convert(ctx: RequestContext, rid: str) -> Response:
    """The conversion form (GET) and the conversion (POST)."""
    lead = ctx.org.get("Lead", rid)
    if lead is None:
        return not_found_page(ctx, "The lead does not exist or was deleted.")
    if lead.get("IsConverted"):
        return redirect(f"/lightning/r/Lead/{lead['Id']}/converted")
    statuses = converted_statuses(ctx)
    company = str(lead.get("Company") or lead.get("Name") or "")
    values: dict[str, Any] = {"account_mode": "new", "account_name": company, "account_search": "",
                              "account_match": "", "contact_mode": "new",
                              "contact_name": "", "opportunity_name": f"{company}-", "no_opportunity": False,
                              "status": statuses[0] if statuses else ""}
    errors = FormErrors()
    matches = account_matches(ctx, company)
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        values.update(account_mode="existing" if form.get("account_mode") == "existing" else "new",
                      account_name=(form.get("account_name") or "").strip(),
                      account_search=(form.get("account_search") or "").strip(),
                      account_match=form.get("account_match") or "",
                      contact_mode="existing" if form.get("contact_mode") == "existing" else "new",
                      contact_name=(form.get("contact_name") or "").strip(),
                      opportunity_name=(form.get("opportunity_name") or "").strip(),
                      no_opportunity=form.get("no_opportunity") is not None,
                      status=form.get("status") or "")
        account_id = contact_id = None
        if values["account_mode"] == "existing":
            # Account Search, else the chosen Account Match, else (as before) a name typed in Account Name
            match = next((a for a in matches if a["Id"] == values["account_match"]), None)
            if values["account_search"]:
                account_id = _lookup(ctx, "Contact", "AccountId", values["account_search"], errors,
                                     "account_search", "Account Search")
            elif match is not None:
                account_id = match["Id"]
            elif values["account_name"]:
                account_id = _lookup(ctx, "Contact", "AccountId", values["account_name"], errors, "account_name",
                                     "Account Name")
            else:
                errors.add("Choose an existing account or create a new one.", "account_search", "Account Search")
        elif not values["account_name"]:
            errors.add("Complete this field.", "account_name", "Account Name")
        if values["contact_mode"] == "existing":
            if not values["contact_name"]:
                errors.add("Choose an existing contact or create a new one.", "contact_name", "Contact Name")
            else:
                contact_id = _lookup(ctx, "Opportunity", "ContactId", values["contact_name"], errors,
                                     "contact_name", "Contact Name")
        if not values["no_opportunity"] and not values["opportunity_name"]:
            errors.add("Complete this field.", "opportunity_name", "Opportunity Name")
        if values["status"] not in statuses:
            errors.add("Choose a converted status.", "status", "Converted Status")
        if not errors:
            try:
                with ctx.org.transaction():
                    result = ctx.org.convert_lead(
                        lead["Id"], account_id=account_id, contact_id=contact_id,
                        create_opportunity=not values["no_opportunity"],
                        opportunity_name=values["opportunity_name"] or None, converted_status=values["status"],
                        user_id=ctx.user_id)
                    if account_id is None and values["account_name"] != company:
                        ctx.org.update("Account", result.account_id, {"Name": values["account_name"]},
                                       user_id=ctx.user_id)
            except OrgError as err:
                errors.add(err.message)
            else:
                return redirect(f"/lightning/r/Lead/{lead['Id']}/converted", "Your lead has been converted.")
    return render(ctx, "convert.html", status=400 if errors else 200, title=f"Convert Lead {lead.get('Name')}",
                  lead=lead, values=values, errors=errors, statuses=statuses, matches=matches)


def account_matches(ctx: RequestContext, company: str) -> list[dict[str, Any]]:
    """Accounts whose name contains the lead's company (or the other way round): the dialog's "Account Matches"."""
    low = company.strip().lower()
    if not low:
        return []
    hits = [a for a in ctx.org.records("Account")
            if a.get("Name") and (low in str(a["Name"]).lower() or str(a["Name"]).lower() in low)]
    return sorted(hits, key=lambda a: str(a["Name"]).lower())[:10]


def converted(ctx: RequestContext, rid: str) -> Response:
    """What a conversion produced: links to the account, contact and opportunity."""
    lead = ctx.org.get("Lead", rid)
    if lead is None:
        return not_found_page(ctx, "The lead does not exist or was deleted.")
    if not lead.get("IsConverted"):
        return redirect(f"/lightning/r/Lead/{lead['Id']}/convert")
    items = []
    for sobject, field in (("Account", "ConvertedAccountId"), ("Contact", "ConvertedContactId"),
                           ("Opportunity", "ConvertedOpportunityId")):
        target = lead.get(field)
        rec = ctx.org.get(sobject, target) if target else None
        if rec is not None:
            from pytest_cua.orgs.localorg.ui.forms import record_name

            items.append({"label": sobject, "name": record_name(ctx.org, sobject, rec),
                          "url": f"/lightning/r/{sobject}/{rec['Id']}/view"})
    return render(ctx, "converted.html", title="Your lead has been converted", lead=lead, items=items)


def register(app: OrgApp) -> None:
    """Add the conversion routes."""
    app.add_route("/lightning/r/Lead/<rid>/convert", convert, ["GET", "POST"], auth="ui", endpoint="ui.convert")
    app.add_route("/lightning/r/Lead/<rid>/converted", converted, ["GET"], auth="ui", endpoint="ui.converted")
