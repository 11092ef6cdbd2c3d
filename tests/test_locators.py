"""Semantic locators of demonstrations resolved against one step's elements: exact before case-insensitive
names, ``nth`` from the start and from the end, and errors that name what was wanted."""

from __future__ import annotations

import pytest

from pytest_cua.agents.locators import LocatorError, parse_locator, resolve_locator
from pytest_cua.observations import Element

ELEMENTS = {e.id: e for e in [Element("e1", "link", "Accounts"), Element("e2", "link", "Cases"),
                              Element("e3", "button", "Save"), Element("e4", "link", "accounts"),
                              Element("e5", "link", "Accounts"), Element("e6", "combobox", "*Stage")]}


@pytest.mark.parametrize("text, wanted", [
    ('role=link[name="Accounts"]', "e1"),
    ('role=link[name="Accounts"] >> nth=1', "e5"),
    ('role=link[name="Accounts"] >> nth=-1', "e5"),  # the last: a page's own link after the navigation's
    ('role=link[name="Cases"] >> nth=-1', "e2"),
    ('role=link[name="ACCOUNTS"]', "e1"),  # no exact match: the first case-insensitive one
    ('role=link[name="accounts"]', "e4"),  # an exact match wins over the case-insensitive ones
    ("label=Save", "e3"),
    ('role=link[name*="ase"]', "e2"),
    ("label=Stage", "e6"),  # a required field's Lightning label starts with its "*" marker
    ('role=combobox[name="Stage"]', "e6"),
])
def test_resolves_to_the_element_named(text: str, wanted: str) -> None:
    assert resolve_locator(text, ELEMENTS) == wanted


@pytest.mark.parametrize("text", ['role=link[name="Accounts"] >> nth=2', 'role=link[name="Cases"] >> nth=-2',
                                  'role=button[name="Cancel"]'])
def test_a_missing_element_is_an_error_naming_the_locator(text: str) -> None:
    with pytest.raises(LocatorError, match="no element matches"):
        resolve_locator(text, ELEMENTS)


def test_not_a_locator_says_which_forms_exist() -> None:
    with pytest.raises(LocatorError, match="not a locator"):
        parse_locator('role=table >> role=link[name="Accounts"]')
