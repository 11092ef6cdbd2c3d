"""Helpers shared by the SCUBA templates: SOQL literals, record look-ups that never crash on a missing
record, and the UI paths of a Lightning-style org."""

from __future__ import annotations

from typing import Any, Mapping

from pytest_cua.actions import Action, GoTo


def soql_str(value: Any) -> str:
    """A SOQL string literal: quotes and backslashes escaped."""
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def rows(sf: Any, soql: str) -> list[dict[str, Any]]:
    """All records of a query (paging followed)."""
    return list(sf.query_all(soql)["records"])


def first(sf: Any, soql: str) -> dict[str, Any] | None:
    """The first record of a query, or None."""
    found = sf.query(soql)["records"]
    return found[0] if found else None


def field(record: Mapping[str, Any] | None, path: str) -> Any:
    """A value by dotted path (``Owner.Name``); None when any step is missing."""
    value: Any = record
    for part in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def split_name(full: str) -> tuple[str, str]:
    """"Ada Byron King" -> ("Ada", "Byron King")."""
    first_name, _, last = full.strip().partition(" ")
    return (first_name, last) if last else ("", first_name)


def goto(env: Any, path: str) -> Action:
    """Go to a path of the org's UI (``/lightning/o/Account/list``)."""
    return GoTo(env.credentials.instance_url.rstrip("/") + path)
