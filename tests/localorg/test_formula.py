"""The validation-rule formula subset: evaluated by a lark tree walker, never by ``eval``."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_cua.orgs.localorg.formula import Context, FormulaUnsupported, evaluate

RECORD = {"amount": 1200.0, "stagename": "Closed Won", "name": "", "nextstep": None, "probability": 90.0,
          "industry": "Retail", "interests": "Golf;Tennis"}
PRIOR = {**RECORD, "stagename": "Prospecting"}


def ctx(is_new: bool = False) -> Context:
    return Context(lambda path: RECORD.get(path[-1].lower()), lambda path: PRIOR.get(path[-1].lower()), is_new)


@pytest.mark.parametrize(("formula", "expected"), [
    ("AND(Amount > 1000, ISPICKVAL(StageName, 'Closed Won'))", True),
    ("Amount > 1000 && ISBLANK(NextStep)", True),
    ("OR(ISBLANK(Name), Probability < 10)", True),
    ("NOT(ISBLANK(Industry))", True),
    ("Amount * 2 = 2400", True),
    ("Amount / 0 > 1", FormulaUnsupported),
    ("IF(Probability >= 90, 'high', 'low') = 'high'", True),
    ("CASE(Industry, 'Retail', 1, 'Energy', 2, 0) = 1", True),
    ("LEN(Industry) = 6 && BEGINS(Industry, 'Ret') && CONTAINS(Industry, 'tai')", True),
    ("INCLUDES(Interests, 'Tennis')", True),
    ("ISCHANGED(StageName) && PRIORVALUE(StageName) = 'Prospecting'", True),
    ("ISNEW()", False),
    ("TEXT(Amount) & '!' = '1200!'", True),
    ("BLANKVALUE(NextStep, 'none') = 'none'", True),
    ("Amount <> 1200", False),
    ("/* comment */ TRUE", True),
    ("REGEX(Name, 'a+')", FormulaUnsupported),
    ("__import__('os')", FormulaUnsupported),
    ("Amount >", FormulaUnsupported),
    ("(" * 3000 + "TRUE" + ")" * 3000, FormulaUnsupported),
])
def test_formula(formula: str, expected: Any) -> None:
    if expected is FormulaUnsupported:
        with pytest.raises(FormulaUnsupported):
            evaluate(formula, ctx())
    else:
        assert evaluate(formula, ctx()) == expected
