"""The UI's pure helpers (no browser): value parsing, lookups by name, list-view filters, formula checks."""

from __future__ import annotations

import pytest

from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.seed import seeded_org
from pytest_cua.orgs.localorg.store import Org
from pytest_cua.orgs.localorg.ui import listing
from pytest_cua.orgs.localorg.ui.forms import (FormErrors, display_value, normalise_date, normalise_datetime, parse_form,
                                          resolve_lookup, shown_date, shown_datetime)
from pytest_cua.orgs.localorg.ui.formulas import formula_syntax_problem
from pytest_cua.orgs.localorg.ui.setup_common import api_name, valid_api_name


@pytest.fixture(scope="module")
def store() -> Org:
    return seeded_org()


@pytest.mark.parametrize("text, expected", [("12/31/2025", "2025-12-31"), ("1/2/2026", "2026-01-02"),
                                            ("2025-12-31", "2025-12-31")])
def test_dates_in_several_spellings(text: str, expected: str) -> None:
    assert normalise_date(text) == expected


@pytest.mark.parametrize("text, expected", [("12/31/2025 9:30 PM", "2025-12-31T21:30:00"),
                                            ("12/31/2025, 12:05 AM", "2025-12-31T00:05:00"),
                                            ("2025-12-31 09:30", "2025-12-31 09:30")])
def test_datetimes_in_several_spellings(text: str, expected: str) -> None:
    assert normalise_datetime(text) == expected


@pytest.mark.parametrize("stored, shown", [("2026-12-05", "12/5/2026"), ("2027-01-15", "1/15/2027"),
                                          ("not a date", "not a date")])
def test_dates_are_shown_as_lightning_shows_them_in_en_us(stored: str, shown: str) -> None:
    assert shown_date(stored) == shown


@pytest.mark.parametrize("stored, shown", [("2026-12-05T15:07:00.000+0000", "12/5/2026, 3:07 PM"),
                                          ("2026-12-05T00:30:00Z", "12/5/2026, 12:30 AM"),
                                          ("2026-12-05T12:00:00", "12/5/2026, 12:00 PM"),
                                          ("2026-12-05", "12/5/2026")])
def test_datetimes_are_shown_as_lightning_shows_them_in_en_us(stored: str, shown: str) -> None:
    assert shown_datetime(stored) == shown


def test_display_value_formats_date_fields_and_leaves_text_fields(store: Org) -> None:
    opp = store.object("Opportunity")
    assert display_value(store, opp.fields["CloseDate"], "2026-12-31") == "12/31/2026"
    assert display_value(store, opp.fields["Name"], "2026-12-31") == "2026-12-31"


def test_parse_form_reports_every_bad_field_at_once(store: Org) -> None:
    from werkzeug.datastructures import MultiDict

    obj = store.object("Account")
    fields = [obj.fields[n] for n in ("Name", "AnnualRevenue", "NumberOfEmployees", "Industry", "ParentId")]
    errors = FormErrors()
    data = parse_form(store, obj, fields, MultiDict({"Name": "X", "AnnualRevenue": "$1,000.50",
                                                     "NumberOfEmployees": "many", "Industry": "Nonsense",
                                                     "ParentId": "No Such Parent"}), errors)
    assert data["AnnualRevenue"] == 1000.5
    assert set(errors.fields) == {"NumberOfEmployees", "Industry", "ParentId"}
    assert any(m.startswith("Parent Account: No matches") for m in errors.page)


def test_lookups_by_name_id_and_ambiguity(store: Org) -> None:
    f = store.object("Contact").fields["AccountId"]
    account = store.records("Account")[0]
    assert resolve_lookup(store, f, account["Name"].upper()) == account["Id"]
    assert resolve_lookup(store, f, account["Id"][:15]) == account["Id"]
    snap = store.snapshot()
    try:
        store.create("Account", {"Name": account["Name"]})
        with pytest.raises(OrgError, match="More than one"):
            resolve_lookup(store, f, account["Name"])
    finally:
        store.restore(snap)
    owner = store.object("Case").fields["OwnerId"]
    queue = store.find("Group", Type="Queue")[0]
    assert resolve_lookup(store, owner, queue["Name"]) == queue["Id"]
    group = store.find("Group", Type="Regular")[0]
    with pytest.raises(OrgError, match="No matches"):
        resolve_lookup(store, owner, group["Name"])


def test_list_view_filters(store: Org) -> None:
    obj = store.object("Account")
    rec = {"Name": "Acme", "AnnualRevenue": 500.0, "Industry": "Banking", "ParentId": None}
    assert listing.matches_filter(store, obj, rec, {"field": "Industry", "operator": "equals", "value": "banking"})
    assert listing.matches_filter(store, obj, rec, {"field": "Industry", "operator": "equals",
                                                    "value": "Retail, Banking"})
    assert not listing.matches_filter(store, obj, rec, {"field": "Industry", "operator": "notEqual",
                                                        "value": "Banking"})
    assert listing.matches_filter(store, obj, rec, {"field": "AnnualRevenue", "operator": "greaterThan",
                                                    "value": "100"})
    assert not listing.matches_filter(store, obj, rec, {"field": "AnnualRevenue", "operator": "lessThan",
                                                        "value": "100"})
    assert listing.matches_filter(store, obj, rec, {"field": "Name", "operator": "startsWith", "value": "ac"})
    assert listing.matches_filter(store, obj, rec, {"field": "Name", "operator": "notContain", "value": "zz"})


def test_display_values(store: Org) -> None:
    obj = store.object("Opportunity")
    assert display_value(store, obj.fields["Amount"], 1234.5) == "$1,234.50"
    assert display_value(store, obj.fields["Probability"], 10.0) == "10%"
    assert display_value(store, obj.fields["IsWon"], False) == "No"
    assert display_value(store, obj.fields["AccountId"], None) == ""


def test_formula_syntax_and_api_names() -> None:
    assert formula_syntax_problem('AND(ISBLANK(Phone), Name = "a)(")') is None
    assert formula_syntax_problem("AND(") == "Missing ')'."
    assert formula_syntax_problem("x)") == "Extra ')'."
    assert formula_syntax_problem("'open") == "Missing closing '."
    assert api_name("Tier 3 - Support!") == "Tier_3_Support" and api_name("3rd line") == "X3rd_line"
    assert valid_api_name("Good_Name1")
    assert not any(valid_api_name(n) for n in ("1abc", "bad__name", "trailing_", "with space"))


def test_a_field_named_like_a_dict_method_shows_no_error_when_it_has_none():
    """``errors.fields['values']`` in Jinja falls back to ``dict.values``: the macros read with .get, so a fresh
    Values textarea is not marked invalid with a "built-in method" text."""
    from pytest_cua.orgs.localorg.ui.web import env

    macros = env.from_string('{% import "setup/_inputs.html" as f %}[{{ f.ferr(errors, "values") }}]'
                             '[{{ f.invalid(errors, "values") }}][{{ f.ferr(errors, "label") }}]')
    fresh = macros.render(errors={"fields": {}})
    assert fresh == "[][][]"
    shown = macros.render(errors={"fields": {"values": "Enter at least one value", "label": "Required"}})
    assert 'id="err-values">Enter at least one value' in shown and 'aria-invalid="true"' in shown
    assert 'id="err-label">Required' in shown
