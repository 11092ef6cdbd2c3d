"""Criteria rows of setup forms (assignment rule entries, territory assignment rules, milestone criteria): each
row a field select, an operator select and a value textbox, read from the posted form and checked together with
an optional filter logic (``1 OR 2``) that may name only the rows filled in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from pytest_cua.orgs.localorg.analytics import filter_logic_numbers
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.listing import OPERATORS  # the operators of list-view filters, the same set

@dataclass(frozen=True)
class Rows:
    """How a form names its rows: input names ``<field><n>`` ... and labels ``"<Field> <n>"`` ..."""

    count: int
    names: tuple[str, str, str] = ("field", "op", "value")
    labels: tuple[str, str, str] = ("Field", "Operator", "Value")

    def read(self, form: Any) -> list[dict[str, str]]:
        f, o, v = self.names
        return [{"field": form.get(f"{f}{i}") or "", "op": form.get(f"{o}{i}") or "equals",
                 "value": form.get(f"{v}{i}") or ""} for i in range(1, self.count + 1)]

    def check(self, errors: FormErrors, rows: list[dict[str, str]], fields: Sequence[tuple[str, str]],
              logic: str = "", required: bool = True) -> list[dict[str, str]]:
        """The rows filled in; what is wrong with them (or with ``logic``) added to ``errors``."""
        used = [r for r in rows if r["field"]]
        first = f"{self.names[0]}1", f"{self.labels[0]} 1"
        if required and not used:
            errors.add("Enter at least one criterion.", *first)
        known = {value for value, _ in fields}
        if any(r["field"] not in known or r["op"] not in dict(OPERATORS) for r in used):
            errors.add("Choose each criterion's field and operator from the lists.", *first)
        if logic:
            numbers = filter_logic_numbers(logic)
            if numbers is None or any(not 1 <= n <= len(used) for n in numbers):
                errors.add(f"The filter logic names criteria that are not there ({len(used)} entered).", "logic",
                           "Filter Logic")
        return used

    def inputs(self, rows: list[dict[str, str]], fields: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
        (f, o, v), (fl, ol, vl) = self.names, self.labels
        out: list[dict[str, Any]] = []
        for i, r in enumerate(rows, 1):
            out += [{"kind": "select", "name": f"{f}{i}", "label": f"{fl} {i}", "value": r["field"],
                     "options": [("", "--None--"), *fields]},
                    {"kind": "select", "name": f"{o}{i}", "label": f"{ol} {i}", "value": r["op"], "options": OPERATORS},
                    {"kind": "text", "name": f"{v}{i}", "label": f"{vl} {i}", "value": r["value"]}]
        return out
