"""Actions of record pages beyond New / Edit / Delete, as Salesforce has them:

- the path of an opportunity, lead or case: choose a step, "Mark as Current Stage" / "Mark Stage as Complete" /
  the closing dialog (``POST /lightning/r/{Object}/{Id}/path``);
- an account's "View Account Hierarchy" (``/lightning/r/Account/{Id}/hierarchy``);
- a related list's "View All" (``/lightning/r/{Object}/{Id}/related/{Relationship}/view``);
- "Add Products" of a price book (products -> Next -> list prices -> Save: price book entries) and of a quote
  (price book if none -> products of its price book -> Next -> quantities, sales prices, discounts -> Save:
  quote line items), ``/lightning/r/{Pricebook2|Quote}/{Id}/addproducts``;
- "Add Leads" / "Add Contacts" of a campaign (select -> Next -> member status -> Submit: campaign members),
  ``/lightning/r/Campaign/{Id}/addmembers?type=Lead|Contact``.
"""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui.forms import FormErrors, record_name
from pytest_cua.orgs.localorg.ui.record_home import PATHS
from pytest_cua.orgs.localorg.ui.record_page import related_lists
from pytest_cua.orgs.localorg.ui.routes_convert import converted_statuses
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, redirect, render

MISSING = "The record does not exist or was deleted."


def _view(obj: str, rid: str) -> str:
    return f"/lightning/r/{obj}/{rid}/view"


def _number(text: str | None) -> float | None:
    """A typed number (``$1,250.50``, ``10%``); None when blank; ValueError when not a number."""
    clean = (text or "").strip().replace(",", "").replace("$", "").replace("%", "").strip()
    return float(clean) if clean else None


# ---------------------------------------------------------------------------------------------------- path

def mark_path_step(ctx: RequestContext, obj_name: str, rid: str) -> Response:
    """``POST /lightning/r/{Opportunity|Lead|Case}/{Id}/path`` (``value``): the path's "Mark as Current Stage",
    "Mark Stage as Complete" and the closing dialog's Save set the path's field (Opportunity's stage, Lead's
    and Case's status). A lead gets a converted status only by conversion."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None or obj.name not in PATHS:
        return not_found_page(ctx, f"{obj_name} records have no path.")
    record = ctx.org.get(obj.name, rid)
    if record is None:
        return not_found_page(ctx, MISSING)
    if not csrf_ok(ctx):
        return forbidden(ctx)
    field_name, word = PATHS[obj.name]
    value = ctx.request.form.get("value") or ""
    view = _view(obj.name, record["Id"])
    if value not in obj.fields[field_name].values:
        return redirect(view, f"Choose a {word.lower()} on the path first.")
    if obj.name == "Lead" and value in converted_statuses(ctx):
        return redirect(f"/lightning/r/Lead/{record['Id']}/convert", "Convert the lead to give it a converted status.")
    try:
        ctx.org.update(obj.name, record["Id"], {field_name: value}, user_id=ctx.user_id)
    except OrgError as err:
        return render(ctx, "message.html", status=400, title=f"{word} not changed", heading=f"{word} not changed",
                      message=err.message, back=view)
    return redirect(view, f"{word} changed successfully.")


# ---------------------------------------------------------------------------------------------------- hierarchy

def account_hierarchy(ctx: RequestContext, rid: str) -> Response:
    """``/lightning/r/Account/{Id}/hierarchy``: the tree of the account's top-most parent, the account marked."""
    account = ctx.org.get("Account", rid)
    if account is None:
        return not_found_page(ctx, MISSING)
    accounts = {a["Id"]: a for a in ctx.org.records("Account")}
    top, seen = account, {account["Id"]}
    while top.get("ParentId") in accounts and top["ParentId"] not in seen:
        top = accounts[top["ParentId"]]
        seen.add(top["Id"])
    children: dict[str, list[dict[str, Any]]] = {}
    for a in accounts.values():
        if a.get("ParentId"):
            children.setdefault(a["ParentId"], []).append(a)

    def node(a: dict[str, Any], path: frozenset[str]) -> dict[str, Any]:
        kids = sorted(children.get(a["Id"], []), key=lambda c: str(c.get("Name") or "").lower())
        return {"id": a["Id"], "name": record_name(ctx.org, "Account", a), "type": a.get("Type") or "",
                "phone": a.get("Phone") or "", "current": a["Id"] == account["Id"],
                "children": [node(k, path | {k["Id"]}) for k in kids if k["Id"] not in path]}

    name = record_name(ctx.org, "Account", account)
    return render(ctx, "account_hierarchy.html", title=f"{name}: Account Hierarchy", name=name, rid=account["Id"],
                  tree=node(top, frozenset({top["Id"]})))


# ---------------------------------------------------------------------------------------------------- View All

def related_all(ctx: RequestContext, obj_name: str, rid: str, rel_name: str) -> Response:
    """``/lightning/r/{Object}/{Id}/related/{Relationship}/view``: every record of one related list."""
    obj = ctx.org.schema.get(obj_name)
    record = ctx.org.get(obj.name, rid) if obj is not None else None
    if obj is None or record is None:
        return not_found_page(ctx, MISSING)
    rl = next((r for r in related_lists(ctx, obj, record["Id"], limit=None) if r["rel"].lower() == rel_name.lower()),
              None)
    if rl is None:
        return not_found_page(ctx, f"{obj.label} has no related list {rel_name}.")
    name = record_name(ctx.org, obj.name, record)
    return render(ctx, "related_all.html", title=f"{rl['label']} | {name}", obj=obj, rid=record["Id"], name=name,
                  rl=rl)


# ---------------------------------------------------------------------------------------------------- Add Products

def _standard_book(ctx: RequestContext) -> dict[str, Any] | None:
    books = ctx.org.records("Pricebook2")
    return next((b for b in books if b.get("IsStandard")), None) or \
        next((b for b in books if b.get("Name") == "Standard Price Book"), None)


def _standard_prices(ctx: RequestContext) -> dict[str, Any]:
    book = _standard_book(ctx)
    if book is None:
        return {}
    return {e["Product2Id"]: e.get("UnitPrice") for e in ctx.org.records("PricebookEntry")
            if e.get("Pricebook2Id") == book["Id"] and e.get("UnitPrice") is not None and e.get("IsActive")}


def _money(value: Any) -> str:
    if value is None or value == "":
        return ""
    number = float(value)
    return str(int(number)) if number.is_integer() else f"{number:.2f}"


def _book_choices(ctx: RequestContext, book: dict[str, Any]) -> list[dict[str, Any]]:
    """Products not yet in the price book that are active or have a standard price, with that price."""
    have = {e.get("Product2Id") for e in ctx.org.records("PricebookEntry") if e.get("Pricebook2Id") == book["Id"]}
    prices = _standard_prices(ctx)
    rows = [{"id": p["Id"], "name": record_name(ctx.org, "Product2", p), "code": p.get("ProductCode") or "",
             "family": p.get("Family") or "", "price": _money(prices.get(p["Id"])),
             "has_standard": p["Id"] in prices}
            for p in ctx.org.records("Product2") if (p.get("IsActive") or p["Id"] in prices) and p["Id"] not in have]
    return sorted(rows, key=lambda r: str(r["name"]).lower())


def _quote_choices(ctx: RequestContext, book_id: str) -> list[dict[str, Any]]:
    """The active entries of the quote's price book, by product."""
    products = {p["Id"]: p for p in ctx.org.records("Product2")}
    rows = []
    for e in ctx.org.records("PricebookEntry"):
        p = products.get(e.get("Product2Id") or "")
        if e.get("Pricebook2Id") != book_id or p is None or not e.get("IsActive", True):
            continue
        rows.append({"id": e["Id"], "product": p["Id"], "name": record_name(ctx.org, "Product2", p),
                     "code": p.get("ProductCode") or "", "family": p.get("Family") or "",
                     "price": _money(e.get("UnitPrice"))})
    return sorted(rows, key=lambda r: str(r["name"]).lower())


def add_products(ctx: RequestContext, obj_name: str, rid: str) -> Response:
    """``/lightning/r/{Pricebook2|Quote}/{Id}/addproducts``: Salesforce's "Add Products" steps."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None or obj.name not in ("Pricebook2", "Quote"):
        return not_found_page(ctx, f"{obj_name} has no Add Products.")
    record = ctx.org.get(obj.name, rid)
    if record is None:
        return not_found_page(ctx, MISSING)
    form = ctx.request.form
    if ctx.request.method == "POST" and not csrf_ok(ctx):
        return forbidden(ctx)
    step = form.get("step") if ctx.request.method == "POST" else ""
    errors = FormErrors()
    name = record_name(ctx.org, obj.name, record)
    base = {"obj": obj, "rid": record["Id"], "name": name, "errors": errors}
    books = [b for b in ctx.org.records("Pricebook2") if b.get("IsActive") or b.get("IsStandard")]
    if obj.name == "Quote":
        if step == "book":
            book = next((b for b in books if b["Id"] == form.get("pricebook")), None)
            if book is None:
                errors.add("Choose a price book.", "pricebook", "Price Book")
            else:
                try:
                    ctx.org.update("Quote", record["Id"], {"Pricebook2Id": book["Id"]}, user_id=ctx.user_id)
                except OrgError as err:
                    errors.add(err.message, "pricebook", "Price Book")
                else:
                    record = ctx.org.get("Quote", record["Id"]) or record
                    step = ""
        if not record.get("Pricebook2Id"):
            return render(ctx, "add_products.html", status=400 if errors else 200, title=f"Choose Price Book: {name}",
                          stage="book", books=sorted(books, key=lambda b: str(b.get("Name")).lower()), **base)
        choices = _quote_choices(ctx, record["Pricebook2Id"])
    else:
        choices = _book_choices(ctx, record)
    by_id = {c["id"]: c for c in choices}
    if step == "select":
        chosen = [by_id[i] for i in form.getlist("product") if i in by_id]
        if not chosen:
            errors.add("Select at least one product.", "product")
        else:
            return render(ctx, "add_products.html", title=f"Edit Selected Products: {name}", stage="edit",
                          rows=chosen, **base)
    if step == "save":
        rows = [by_id[i] for i in form.getlist("product") if i in by_id]
        values = _line_values(ctx, obj.name, record, rows, form, errors)
        if not errors and values:
            try:
                for data in values:
                    ctx.org.create("PricebookEntry" if obj.name == "Pricebook2" else "QuoteLineItem", data,
                                   user_id=ctx.user_id)
            except OrgError as err:
                errors.add(err.message)
            else:
                noun = "product" if len(values) == 1 else "products"
                return redirect(_view(obj.name, record["Id"]), f"{len(values)} {noun} added to {name}.")
        for row in rows:
            row["typed"] = {k: form.get(f"{k}-{row['id']}") or "" for k in ("price", "quantity", "discount",
                                                                                "description")}
            row["standard"] = form.get(f"standard-{row['id']}") is not None
        return render(ctx, "add_products.html", status=400, title=f"Edit Selected Products: {name}", stage="edit",
                      rows=rows, **base)
    return render(ctx, "add_products.html", status=400 if errors else 200, title=f"Add Products: {name}",
                  stage="select", rows=choices, **base)


def _line_values(ctx: RequestContext, obj_name: str, record: dict[str, Any], rows: list[dict[str, Any]],
                 form: Any, errors: FormErrors) -> list[dict[str, Any]]:
    """The records the edit step's rows make (errors by row and field)."""
    out = []
    for row in rows:
        rid = row["id"]
        try:
            price = _number(form.get(f"price-{rid}"))
        except ValueError:
            errors.add(f"{row['name']}: the price is not a number.", f"price-{rid}")
            continue
        if obj_name == "Pricebook2":
            standard = form.get(f"standard-{rid}") is not None and row.get("has_standard")
            if standard:
                price = _number(row["price"])
            if price is None:
                errors.add(f"{row['name']}: Complete this field: List Price.", f"price-{rid}")
                continue
            out.append({"Pricebook2Id": record["Id"], "Product2Id": rid, "UnitPrice": price, "IsActive": True,
                        "UseStandardPrice": bool(standard)})
            continue
        try:
            quantity = _number(form.get(f"quantity-{rid}"))
            discount = _number(form.get(f"discount-{rid}"))
        except ValueError:
            errors.add(f"{row['name']}: the quantity and the discount must be numbers.", f"quantity-{rid}")
            continue
        if quantity is None or price is None:
            errors.add(f"{row['name']}: Complete these fields: Quantity, Sales Price.", f"quantity-{rid}")
            continue
        data = {"QuoteId": record["Id"], "PricebookEntryId": rid, "Product2Id": row["product"],
                "Quantity": quantity, "UnitPrice": price}
        if discount is not None:
            data["Discount"] = discount
        description = (form.get(f"description-{rid}") or "").strip()
        if description:
            data["Description"] = description
        out.append(data)
    return out


# ---------------------------------------------------------------------------------------------------- Add Leads

MEMBER_TYPES = {"Lead": ("LeadId", "Add Leads", "Leads"), "Contact": ("ContactId", "Add Contacts", "Contacts")}


def add_members(ctx: RequestContext, rid: str) -> Response:
    """``/lightning/r/Campaign/{Id}/addmembers?type=Lead|Contact``: search and select people -> Next -> Member
    Status -> Submit: campaign members."""
    campaign = ctx.org.get("Campaign", rid)
    if campaign is None:
        return not_found_page(ctx, MISSING)
    kind = ctx.request.values.get("type") or "Lead"
    if kind not in MEMBER_TYPES:
        return not_found_page(ctx, f"Campaign members cannot be of type {kind}.")
    field, title, plural_label = MEMBER_TYPES[kind]
    form = ctx.request.form
    if ctx.request.method == "POST" and not csrf_ok(ctx):
        return forbidden(ctx)
    step = form.get("step") if ctx.request.method == "POST" else ""
    members = {m.get(field) for m in ctx.org.records("CampaignMember") if m.get("CampaignId") == campaign["Id"]}
    people = [p for p in ctx.org.records(kind) if p["Id"] not in members and not p.get("IsConverted")]
    q = (ctx.request.values.get("q") or "").strip()
    rows = [{"id": p["Id"], "name": record_name(ctx.org, kind, p), "company": p.get("Company") or "",
             "email": p.get("Email") or "", "status": p.get("Status") or ""} for p in people]
    if q:
        rows = [r for r in rows if q.lower() in f"{r['name']} {r['company']} {r['email']}".lower()]
    rows.sort(key=lambda r: str(r["name"]).lower())
    by_id = {r["id"]: r for r in rows}
    errors = FormErrors()
    name = record_name(ctx.org, "Campaign", campaign)
    statuses = list(ctx.org.object("CampaignMember").fields["Status"].values)
    base = {"rid": campaign["Id"], "name": name, "kind": kind, "title_text": title, "plural_label": plural_label,
            "errors": errors, "q": q, "statuses": statuses}
    chosen = [by_id[i] for i in form.getlist("member") if i in by_id]
    if step in ("next", "submit") and not chosen:
        errors.add(f"Select at least one of the {plural_label.lower()}.", "member")
    elif step == "next":
        return render(ctx, "add_members.html", title=f"{title}: {name}", stage="status", rows=chosen,
                      status_value="Sent" if "Sent" in statuses else (statuses[0] if statuses else ""), **base)
    elif step == "submit":
        status = form.get("member_status") or ""
        if status not in statuses:
            errors.add("Choose a member status.", "member_status", "Member Status")
            return render(ctx, "add_members.html", status=400, title=f"{title}: {name}", stage="status",
                          rows=chosen, status_value=status, **base)
        try:
            for person in chosen:
                ctx.org.create("CampaignMember", {"CampaignId": campaign["Id"], field: person["id"],
                                                  "Status": status}, user_id=ctx.user_id)
        except OrgError as err:
            errors.add(err.message)
        else:
            noun = "member" if len(chosen) == 1 else "members"
            return redirect(_view("Campaign", campaign["Id"]), f"{len(chosen)} {noun} added to {name}.")
    return render(ctx, "add_members.html", status=400 if errors else 200, title=f"{title}: {name}", stage="select",
                  rows=rows, checked={r["id"] for r in chosen}, **base)


def register(app: OrgApp) -> None:
    """Add the record action routes."""
    app.add_route("/lightning/r/<obj_name>/<rid>/path", mark_path_step, ["POST"], auth="ui", endpoint="ui.mark_path_step")
    app.add_route("/lightning/r/Account/<rid>/hierarchy", account_hierarchy, ["GET"], auth="ui",
                  endpoint="ui.account_hierarchy")
    app.add_route("/lightning/r/<obj_name>/<rid>/related/<rel_name>/view", related_all, ["GET"], auth="ui",
                  endpoint="ui.related_all")
    app.add_route("/lightning/r/<obj_name>/<rid>/addproducts", add_products, ["GET", "POST"], auth="ui",
                  endpoint="ui.add_products")
    app.add_route("/lightning/r/Campaign/<rid>/addmembers", add_members, ["GET", "POST"], auth="ui",
                  endpoint="ui.add_members")
