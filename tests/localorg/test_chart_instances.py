"""ListViewChartInstance: Salesforce's view of the charts offered on a list view, kept by the org from the
ListView and ListViewChart records, queried over REST with simple-salesforce, and never written through it."""

from __future__ import annotations

import pytest
from simple_salesforce import Salesforce
from simple_salesforce.exceptions import SalesforceMalformedRequest


def _instances(sf: Salesforce, view_id: str, entity: str) -> list[str]:
    rows = sf.query("SELECT Label FROM ListViewChartInstance WHERE ListViewContextId = "
                    f"'{view_id}' AND SourceEntity = '{entity}'")["records"]
    return sorted(r["Label"] for r in rows)


def test_a_chart_is_offered_on_every_list_view_of_its_object(sf: Salesforce) -> None:
    views = sf.query("SELECT Id FROM ListView WHERE SobjectType = 'Opportunity'")["records"]
    assert views, "the seed has opportunity list views"
    others = sf.query("SELECT Id FROM ListView WHERE SobjectType = 'Account'")["records"]
    chart = sf.ListViewChart.create({"MasterLabel": "By Amount", "DeveloperName": "By_Amount",
                                     "SobjectType": "Opportunity", "ChartType": "pie", "AggregateType": "Sum",
                                     "AggregateField": "Opportunity.Amount",
                                     "GroupingField": "Opportunity.AccountId"})["id"]
    for view in views:
        assert _instances(sf, view["Id"], "Opportunity") == ["By Amount"]
    for view in others:
        assert _instances(sf, view["Id"], "Opportunity") == []
    row = sf.query(f"SELECT ListViewChartId, ChartType, AggregateType, GroupingField FROM ListViewChartInstance "
                   f"WHERE ListViewContextId = '{views[0]['Id']}'")["records"][0]
    assert (row["ListViewChartId"][:15], row["ChartType"], row["AggregateType"], row["GroupingField"]) == \
        (chart[:15], "pie", "Sum", "Opportunity.AccountId")

    sf.ListViewChart.update(chart, {"MasterLabel": "Amount by Account", "SobjectType": "Account"})
    assert _instances(sf, views[0]["Id"], "Opportunity") == []
    for view in others:
        assert _instances(sf, view["Id"], "Account") == ["Amount by Account"]

    new_view = sf.ListView.create({"Name": "Big", "DeveloperName": "Big", "SobjectType": "Account"})["id"]
    assert _instances(sf, new_view, "Account") == ["Amount by Account"]
    sf.ListViewChart.delete(chart)
    assert _instances(sf, new_view, "Account") == []


def test_chart_instances_take_no_write(sf: Salesforce) -> None:
    with pytest.raises(SalesforceMalformedRequest) as raised:
        sf.ListViewChartInstance.create({})
    assert raised.value.content[0]["errorCode"] == "INVALID_TYPE_FOR_OPERATION"
    assert "cannot be inserted: List View Chart Instance" in raised.value.content[0]["message"]
