"""Formulas typed into setup forms (formula fields, validation rules): the formula editor's helper selects
("Insert Field", "Insert Operator", "Functions") and the checks Salesforce makes before it saves a formula (syntax,
fields the object does not have)."""

from __future__ import annotations

import re
from typing import Any

from pytest_cua.orgs.layout_labels import layout_label
from pytest_cua.orgs.localorg.app import RequestContext
from pytest_cua.orgs.localorg.schema import ObjectSchema

FORMULA_OPERATORS = [("+", "+ Add"), ("-", "- Subtract"), ("*", "* Multiply"), ("/", "/ Divide"),
                     ("=", "= Equal"), ("<>", "<> Not Equal"), ("<", "< Less Than"), (">", "> Greater Than"),
                     ("&&", "&& And"), ("||", "|| Or"), ("&", "& Concatenate"), ("(", "( Open Parenthesis"),
                     (")", ") Close Parenthesis")]
# Salesforce's formula functions as the Functions list inserts them (name, then its arguments to replace)
FORMULA_FUNCTIONS = [(text, text.split("(", 1)[0]) for text in (
    "ABS(number)", "ADDMONTHS(date, num)", "AND(logical1, logical2, ...)", "BLANKVALUE(expression, substitute_expression)",
    "CASE(expression, value1, result1, value2, result2, ..., else_result)", "CONTAINS(text, compare_text)",
    "DATE(year, month, day)", "DATEVALUE(expression)", "DAY(date)", "FIND(search_text, text)",
    "IF(logical_test, value_if_true, value_if_false)", "ISBLANK(expression)", "ISPICKVAL(picklist_field, text_literal)",
    "LEFT(text, num_chars)", "LEN(text)", "LOWER(text)", "MONTH(date)", "NOT(logical)", "NOW()",
    "OR(logical1, logical2, ...)", "REGEX(text, regex_text)", "RIGHT(text, num_chars)", "ROUND(number, num_digits)",
    "TEXT(value)", "TODAY()", "TRIM(text)", "UPPER(text)", "VALUE(text)", "YEAR(date)")]
_FORMULA_WORDS = {"TRUE", "FALSE", "NULL", "AND", "OR", "NOT"}


def formula_helpers(ctx: RequestContext, obj: ObjectSchema) -> list[dict[str, Any]]:
    """The formula editor's helper selects: "Insert Field" (fields and ``Relationship.Field`` of lookups),
    "Insert Operator" and "Functions" (each inserts its text at the cursor of the formula)."""
    fields = [(f.name, f"{f.label} ({f.name})") for f in sorted(obj.fields.values(), key=lambda f: f.label.lower())]
    for f in obj.fields.values():
        target = ctx.org.schema.get(f.reference_to[0]) if f.type == "reference" and f.reference_to else None
        if target is not None and f.relationship_name:
            rel = f.relationship_name
            shown = layout_label(obj.name, obj.label, f.name, f.label)  # "Account Owner > Country", as Salesforce
            fields += [(f"{rel}.{g.name}", f"{shown} > {g.label}") for g in
                       sorted(target.fields.values(), key=lambda g: g.label.lower())]
    return [{"label": "Insert Field", "options": fields},
            {"label": "Insert Operator", "options": FORMULA_OPERATORS},
            {"label": "Functions", "options": FORMULA_FUNCTIONS}]


def formula_input(ctx: RequestContext, obj: ObjectSchema, value: str) -> dict[str, Any]:
    """The "Formula" textarea of a formula field's steps, with the helper selects."""
    return {"kind": "textarea", "name": "formula", "label": "Formula", "value": value, "rows": 6, "required": True,
            "insert": formula_helpers(ctx, obj),
            "help": "Build the formula from fields, operators and functions, for example CloseDate - TODAY()."}


def formula_problem(obj: ObjectSchema, text: str) -> str | None:
    """What Salesforce would refuse in a formula on ``obj``: nothing written, unbalanced parentheses or quotes,
    or a field (or the first step of a cross-object reference) the object does not have."""
    if not text.strip():
        return "Complete this field."
    problem = formula_syntax_problem(text)
    if problem:
        return f"Error: Syntax error. {problem}"
    bare = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', text)
    for m in re.finditer(r"(?<![\w.$])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(\s*\()?", bare):
        ref, call = m.group(1), m.group(2)
        if call or ref.upper() in _FORMULA_WORDS or ref.startswith("$"):
            continue
        first = ref.split(".", 1)[0]
        if "." in ref:
            ok = any(f.relationship_name and f.relationship_name.lower() == first.lower()
                     for f in obj.fields.values() if f.type == "reference") or \
                first.lower() in ("owner", "createdby", "lastmodifiedby")
        else:
            ok = obj.field(first) is not None
        if not ok:
            return f"Error: Field {first} does not exist. Check spelling."
    return None


def formula_syntax_problem(text: str) -> str | None:
    """What is plainly wrong with a formula (unbalanced parentheses or quotes), else None.

    Formulas beyond the local evaluator's subset are saved (Salesforce accepts them) and listed as not enforced
    on the rule's page, so only mistakes every formula engine rejects block the save."""
    depth = 0
    quote: str | None = None
    escaped = False
    for ch in text:
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return "Extra ')'."
    if quote:
        return f"Missing closing {quote}."
    if depth > 0:
        return "Missing ')'."
    return None
