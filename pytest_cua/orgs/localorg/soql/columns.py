"""The column metadata of a SOQL query: what ``GET .../query?q=SOQL&columns=true`` answers.

Salesforce's query resource describes a query's columns instead of running it when ``columns=true`` is given
(the Developer Console and the Salesforce CLI's ``sf data query`` use it: the CLI names its CSV and table
columns after it). The body::

    {"columnMetadata": [{"aggregate": false, "apexType": "String", "booleanType": false, "columnName": "Name",
                         "custom": false, "displayName": "Name", "foreignKeyName": null, "insertable": true,
                         "joinColumns": [], "numberType": false, "textType": true, "updatable": true}, ...],
     "entityName": "Account", "groupBy": false, "idSelected": true, "keyPrefix": "001"}

A parent field (``Owner.Name``) is a column ``Owner`` (``foreignKeyName`` ``OwnerId``) whose ``joinColumns`` hold
``Name``; a child subquery is an ``aggregate`` column named after the relationship with its fields as
``joinColumns``; an aggregate function is an ``aggregate`` column ``expr0`` (or its alias) whose ``displayName``
is the function as written. Column names are the keys the query's records carry, so a client can look values
up with them. The query is checked exactly as when it runs (the same errors).
"""

from __future__ import annotations

from typing import Any

from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema
from pytest_cua.orgs.localorg.soql.engine import AGGREGATES, LABEL_FUNCTIONS, ResolvedPath, _Executor
from pytest_cua.orgs.localorg.soql.parser import FieldRef, FuncCall, Pos, Query, SelectField, SelectSubquery, parse

_APEX_TYPES = {
    "id": "Id", "reference": "Id", "boolean": "Boolean", "int": "Integer", "double": "Double",
    "currency": "Decimal", "percent": "Double", "date": "Date", "datetime": "Datetime", "time": "Time",
}
_TEXT_TYPES = frozenset({"string", "textarea", "email", "phone", "url", "picklist", "multipicklist", "combobox",
                         "encryptedstring"})
_NUMBER_TYPES = frozenset({"int", "double", "currency", "percent"})


def _column(name: str, display: str, *, field: FieldSchema | None = None, aggregate: bool = False,
            joins: list[dict[str, Any]] | None = None, foreign_key: str | None = None,
            number: bool = False) -> dict[str, Any]:
    ftype = field.type if field is not None else ""
    return {
        "aggregate": aggregate,
        "apexType": (_APEX_TYPES.get(ftype) or ("String" if ftype in _TEXT_TYPES else None)) if field else None,
        "booleanType": ftype == "boolean",
        "columnName": name,
        "custom": bool(field is not None and field.name.endswith("__c")),
        "displayName": display,
        "foreignKeyName": foreign_key,
        "insertable": bool(field is not None and field.createable and ftype != "id"),
        "joinColumns": joins or [],
        "numberType": number or ftype in _NUMBER_TYPES,
        "textType": ftype in _TEXT_TYPES,
        "updatable": bool(field is not None and field.updateable and ftype != "id"),
    }


def _path_column(ex: _Executor, obj: ObjectSchema, path: ResolvedPath) -> dict[str, Any]:
    """The column of a field path: nested ``joinColumns`` for each relationship crossed."""
    if not path.rels:
        return _column(path.field.name, path.field.name, field=path.field)
    rel = obj.relationship(path.rels[0])
    assert rel is not None  # resolve() checked the path
    target = ex.schema.objects[rel.reference_to[0]]
    inner = _path_column(ex, target, ResolvedPath(path.rels[1:], path.leaf, path.field, path.key))
    if not path.rels[1:]:
        inner["columnName"] = inner["displayName"] = path.leaf
    name = rel.relationship_name or path.rels[0]
    return _column(name, name, foreign_key=rel.name, joins=[inner])


def _written(text: str, pos: Pos) -> str:
    """The function call starting at ``pos`` as the query writes it (``avg(Amount)``)."""
    lines = text.splitlines()
    offset = sum(len(line) + 1 for line in lines[:pos.line - 1]) + pos.column - 1
    depth = 0
    for i in range(offset, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[offset:i + 1]
    return text[offset:]


def _plain_field(expr: Any) -> Any:
    """``toLabel(Status)`` / ``format(Amount)`` select the field itself."""
    if isinstance(expr, FuncCall) and expr.name in LABEL_FUNCTIONS and isinstance(expr.arg, FieldRef):
        return expr.arg
    return expr


def query_columns(org: Any, text: str, *, api: str = "data", version: str = "59.0") -> dict[str, Any]:
    """The ``columns=true`` body of ``text``; raises the query's own OrgError when it would not run."""
    ex = _Executor(org, text, api, version)
    query = parse(text)
    ex.run(query)  # every check of a real run (names, grouping, limits), with the same errors
    obj = ex.schema.objects[ex._object(query.sobject, query.sobject_pos).name]
    items = ex._expand(obj, query)
    aggregate_query = bool(query.group_by) or any(
        isinstance(i, SelectField) and isinstance(i.expr, FuncCall) and i.expr.name in AGGREGATES for i in items)
    columns: list[dict[str, Any]] = []
    expr_n = 0
    id_selected = False
    for item in items:
        if isinstance(item, SelectSubquery):
            columns.append(_child_column(ex, obj, item.query))
            continue
        assert isinstance(item, SelectField)
        expr = _plain_field(item.expr)
        if isinstance(expr, FuncCall):
            if expr.name == "COUNT" and expr.arg is None:
                continue  # COUNT() alone: the rows are not returned, only totalSize
            name = item.alias or f"expr{expr_n}"
            if not item.alias:
                expr_n += 1
            columns.append(_column(name, _written(text, expr.pos), aggregate=True,
                                   number=expr.name in ("COUNT", "COUNT_DISTINCT", "SUM", "AVG")))
            continue
        path = ex.resolve(obj, expr)
        if not path.rels and path.field.type == "id":
            id_selected = True
        if aggregate_query:
            key = item.alias or path.leaf
            columns.append(_column(key, key, field=path.field))
        else:
            columns.append(_path_column(ex, obj, path))
    return {"columnMetadata": columns, "entityName": obj.name, "groupBy": bool(query.group_by),
            "idSelected": id_selected, "keyPrefix": obj.key_prefix}


def _child_column(ex: _Executor, parent: ObjectSchema, sub: Query) -> dict[str, Any]:
    rel = parent.child_relationship(sub.sobject)
    assert rel is not None  # run() checked the subquery
    child = ex.schema.objects[rel.child_object]
    joins = [_path_column(ex, child, ex.resolve(child, _plain_field(item.expr)))
             for item in ex._expand(child, sub) if isinstance(item, SelectField)]
    return _column(rel.name, rel.name, aggregate=True, joins=joins)
