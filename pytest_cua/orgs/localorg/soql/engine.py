"""Run a parsed SOQL query against the store and shape the result as Salesforce does.

The engine checks every name against the schema before it reads a record (INVALID_TYPE, INVALID_FIELD,
MALFORMED_QUERY with the position), compiles conditions into predicates and then scans the tables. Semantics
follow Salesforce: text comparisons ignore case, ``!=`` and ``NOT IN`` match nulls, date literals are ranges in
UTC, ``ASC`` sorts nulls first and ``DESC`` last unless told otherwise, a child subquery without rows is null.
"""

from __future__ import annotations

import calendar
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any, Callable, Iterable

from pytest_cua.orgs.localorg import ids
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.schema import NUMBER_TYPES, FieldSchema, ObjectSchema
from pytest_cua.orgs.localorg.soql.parser import (
    BoolOp, Comparison, FieldRef, FuncCall, Literal, Not, Operand, OrderItem, Pos, Query, SelectFields, SelectField,
    SelectSubquery, parse, position_message,
)
from pytest_cua.orgs.localorg.values import format_datetime, parse_datetime, today as org_today

AGGREGATES = frozenset({"COUNT", "COUNT_DISTINCT", "SUM", "AVG", "MIN", "MAX"})
DATE_FUNCTIONS = frozenset({"CALENDAR_YEAR", "CALENDAR_MONTH", "CALENDAR_QUARTER", "DAY_IN_MONTH", "DAY_IN_WEEK",
                            "DAY_ONLY", "HOUR_IN_DAY"})
LABEL_FUNCTIONS = frozenset({"TOLABEL", "FORMAT"})
TEXT = frozenset({"string", "textarea", "email", "phone", "url", "picklist", "multipicklist"})
MAX_OFFSET = 2000
FIELDS_LIMIT = 200


def run_query(org: Any, text: str, *, api: str = "data", version: str = "59.0",
              deleted: bool = False) -> dict[str, Any]:
    """Parse and run ``text``; returns ``{"totalSize", "done": True, "records"}`` with all rows (``deleted``:
    the recycle bin's records too, as queryAll has them)."""
    query = parse(text)
    return _Executor(org, text, api, version, deleted=deleted).run(query)


# ---------------------------------------------------------------------------------------------- helpers

def _err(text: str, pos: Pos, code: str, detail: str) -> OrgError:
    return OrgError(code, position_message(text, pos.line, pos.column, detail))


def _add_months(d: date, months: int) -> date:
    m = d.month - 1 + months
    y = d.year + m // 12
    m = m % 12 + 1
    return date(y, m, min(d.day, calendar.monthrange(y, m)[1]))


def _quarter_start(d: date) -> date:
    return date(d.year, 3 * ((d.month - 1) // 3) + 1, 1)


def date_range(name: str, n: int | None, today: date | None = None) -> tuple[date, date]:
    """The half-open range ``[start, end)`` of a date literal (``TODAY``, ``LAST_N_DAYS:30``, ...), in UTC."""
    t = today or org_today()
    week = t - timedelta(days=(t.weekday() + 1) % 7)  # weeks start on Sunday
    month = t.replace(day=1)
    quarter = _quarter_start(t)
    year = date(t.year, 1, 1)
    one = timedelta(days=1)
    fixed = {
        "YESTERDAY": (t - one, t), "TODAY": (t, t + one), "TOMORROW": (t + one, t + 2 * one),
        "LAST_WEEK": (week - 7 * one, week), "THIS_WEEK": (week, week + 7 * one),
        "NEXT_WEEK": (week + 7 * one, week + 14 * one),
        "LAST_MONTH": (_add_months(month, -1), month), "THIS_MONTH": (month, _add_months(month, 1)),
        "NEXT_MONTH": (_add_months(month, 1), _add_months(month, 2)),
        "LAST_90_DAYS": (t - 90 * one, t + one), "NEXT_90_DAYS": (t + one, t + 91 * one),
        "LAST_QUARTER": (_add_months(quarter, -3), quarter), "THIS_QUARTER": (quarter, _add_months(quarter, 3)),
        "NEXT_QUARTER": (_add_months(quarter, 3), _add_months(quarter, 6)),
        "LAST_YEAR": (date(t.year - 1, 1, 1), year), "THIS_YEAR": (year, date(t.year + 1, 1, 1)),
        "NEXT_YEAR": (date(t.year + 1, 1, 1), date(t.year + 2, 1, 1)),
    }
    if n is None:
        return fixed[name]
    ranges = {
        "LAST_N_DAYS": lambda: (t - n * one, t + one), "NEXT_N_DAYS": lambda: (t + one, t + (n + 1) * one),
        "N_DAYS_AGO": lambda: (t - n * one, t - (n - 1) * one),
        "LAST_N_WEEKS": lambda: (week - 7 * n * one, week), "NEXT_N_WEEKS": lambda: (week + 7 * one, week + 7 * (n + 1) * one),
        "N_WEEKS_AGO": lambda: (week - 7 * n * one, week - 7 * (n - 1) * one),
        "LAST_N_MONTHS": lambda: (_add_months(month, -n), month),
        "NEXT_N_MONTHS": lambda: (_add_months(month, 1), _add_months(month, n + 1)),
        "N_MONTHS_AGO": lambda: (_add_months(month, -n), _add_months(month, -n + 1)),
        "LAST_N_QUARTERS": lambda: (_add_months(quarter, -3 * n), quarter),
        "NEXT_N_QUARTERS": lambda: (_add_months(quarter, 3), _add_months(quarter, 3 * (n + 1))),
        "LAST_N_YEARS": lambda: (date(t.year - n, 1, 1), year),
        "NEXT_N_YEARS": lambda: (date(t.year + 1, 1, 1), date(t.year + n + 1, 1, 1)),
        "N_YEARS_AGO": lambda: (date(t.year - n, 1, 1), date(t.year - n + 1, 1, 1)),
    }
    return ranges[name]()


def _norm(ftype: str, value: Any) -> Any:
    """A value as compared and sorted: text without case, numbers as float."""
    if value is None:
        return None
    if ftype in TEXT:
        return str(value).lower()
    if ftype in NUMBER_TYPES:
        return float(value)
    return value


def _like_regex(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern) and pattern[i + 1] in "%_":
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        i += 1
    return re.compile("".join(out), re.IGNORECASE | re.DOTALL)


def _date_part(func: str, value: Any, ftype: str) -> Any:
    if value is None:
        return None
    if ftype == "datetime":
        dt = parse_datetime(value)
        d = dt.date()
    else:
        dt = None
        d = date.fromisoformat(value)
    if func == "CALENDAR_YEAR":
        return d.year
    if func == "CALENDAR_MONTH":
        return d.month
    if func == "CALENDAR_QUARTER":
        return (d.month - 1) // 3 + 1
    if func == "DAY_IN_MONTH":
        return d.day
    if func == "DAY_IN_WEEK":
        return (d.weekday() + 1) % 7 + 1  # 1 = Sunday
    if func == "DAY_ONLY":
        return d.isoformat()
    if func == "HOUR_IN_DAY":
        return dt.hour if dt else 0
    raise KeyError(func)


# ---------------------------------------------------------------------------------------------- field paths

@dataclass
class ResolvedPath:
    """A checked field path: relationship names to walk, then the leaf; ``field`` is the leaf's schema (of the
    first candidate object when the path crosses a polymorphic relationship)."""

    rels: list[str]
    leaf: str
    field: FieldSchema
    key: str  # canonical dotted path, lower case (for grouping and duplicate checks)


class _Executor:
    def __init__(self, org: Any, text: str, api: str, version: str, *, deleted: bool = False) -> None:
        self.org = org
        self.schema = org.schema
        self.tables = org._tables
        self.bin = org._bin if deleted else {}
        self.text = text
        self.api = api
        self.base = f"/services/data/v{version}/" + ("tooling/" if api == "tooling" else "") + "sobjects/"

    # ------------------------------------------------------------------ schema checks

    def _object(self, name: str, pos: Pos) -> ObjectSchema:
        obj = self.schema.get(name)
        if obj is None or not (obj.api == "both" or obj.api == self.api):
            raise _err(self.text, pos, "INVALID_TYPE",
                       f"sObject type '{name}' is not supported. If you are attempting to use a custom object, be "
                       "sure to append the '__c' after the entity name. Please reference your WSDL or the describe "
                       "call for the appropriate names.")
        return obj

    def _no_column(self, ref: FieldRef, name: str, obj: ObjectSchema) -> OrgError:
        return _err(self.text, ref.pos, "INVALID_FIELD",
                    f"No such column '{name}' on entity '{obj.name}'. If you are attempting to use a custom field, be "
                    "sure to append the '__c' after the custom field name. Please reference your WSDL or the "
                    "describe call for the appropriate names.")

    def resolve(self, obj: ObjectSchema, ref: FieldRef) -> ResolvedPath:
        """Check a field path against the schema."""
        path = list(ref.path)
        if len(path) > 1 and path[0].lower() == obj.name.lower() and obj.relationship(path[0]) is None:
            path = path[1:]
        current = [obj]
        rels: list[str] = []
        polymorphic = False
        for part in path[:-1]:
            targets: list[ObjectSchema] = []
            for o in current:
                rel = o.relationship(part)
                if rel is not None:
                    polymorphic = rel.polymorphic
                    for t in rel.reference_to:
                        if self.schema.objects[t] not in targets:
                            targets.append(self.schema.objects[t])
            if not targets:
                raise _err(self.text, ref.pos, "INVALID_FIELD",
                           f"Didn't understand relationship '{part}' in field path. If you are attempting to use a "
                           "custom relationship, be sure to append the '__r' after the custom relationship name. "
                           "Please reference your WSDL or the describe call for the appropriate names.")
            rels.append(part)
            current = targets
        leaf = path[-1]
        found: FieldSchema | None = None
        for o in current:
            f = o.field(leaf)
            if f is None and polymorphic and leaf.lower() == "name" and o.name_field:
                f = o.fields[o.name_field]
            if f is not None:
                found = found or f
        if found is None:
            raise self._no_column(ref, leaf, current[0])
        canonical_leaf = found.name if not (polymorphic and leaf.lower() == "name") else "Name"
        return ResolvedPath(rels, canonical_leaf, found, ".".join([*(r.lower() for r in rels), canonical_leaf.lower()]))

    # ------------------------------------------------------------------ record access

    def _walk(self, obj: ObjectSchema, rec: dict | None, rels: list[str]) -> tuple[ObjectSchema | None, dict | None]:
        for part in rels:
            if rec is None:
                return None, None
            rel = obj.relationship(part)
            if rel is None:
                return None, None
            target_id = rec.get(rel.name)
            if not target_id:
                return None, None
            target = self.schema.by_prefix(target_id[:3])
            if target is None:
                return None, None
            obj, rec = target, self.tables[target.name].get(target_id)
        return obj, rec

    def getter(self, obj: ObjectSchema, path: ResolvedPath) -> Callable[[dict], Any]:
        """A function record -> value of ``path``."""
        leaf = path.leaf
        if not path.rels:
            name = path.field.name
            return lambda rec: rec.get(name)

        def get(rec: dict) -> Any:
            o, r = self._walk(obj, rec, path.rels)
            if r is None or o is None:
                return None
            f = o.field(leaf)
            if f is None and leaf == "Name" and o.name_field:
                f = o.fields[o.name_field]
            return r.get(f.name) if f is not None else None
        return get

    def _attributes(self, obj: ObjectSchema, rec: dict) -> dict[str, str]:
        return {"type": obj.name, "url": f"{self.base}{obj.name}/{rec['Id']}"}

    def _emit(self, out: dict, obj: ObjectSchema, rec: dict, path: ResolvedPath) -> None:
        """Put the value of ``path`` into the output record ``out``, nesting parent objects."""
        cur_out, cur_obj, cur_rec = out, obj, rec
        for part in path.rels:
            rel = cur_obj.relationship(part)
            key = rel.relationship_name if rel is not None else part
            if key in cur_out and cur_out[key] is None:
                return
            target_obj, target_rec = self._walk(cur_obj, cur_rec, [part])
            if target_rec is None or target_obj is None:
                cur_out.setdefault(key, None)
                return
            if key not in cur_out:
                cur_out[key] = {"attributes": self._attributes(target_obj, target_rec)}
            cur_out, cur_obj, cur_rec = cur_out[key], target_obj, target_rec
        f = cur_obj.field(path.leaf)
        if f is None and path.leaf == "Name" and cur_obj.name_field:
            f = cur_obj.fields[cur_obj.name_field]
        cur_out[path.leaf if path.rels else path.field.name] = cur_rec.get(f.name) if f is not None else None

    # ------------------------------------------------------------------ conditions

    def _literal(self, ftype: str, field_label: str, lit: Literal, op: str) -> Any:
        """The comparable form of a literal for a field of ``ftype``; a (start, end) tuple for date ranges."""
        kind = lit.kind
        if kind == "null":
            return None

        def wrong(expected: str, quoted: bool) -> OrgError:
            hint = "and should be enclosed in quotes" if quoted else "and should not be enclosed in quotes"
            return _err(self.text, lit.pos, "INVALID_QUERY_FILTER_OPERATOR",
                        f"value of filter criterion for field '{field_label}' must be of type {expected} {hint}")
        if ftype in TEXT:
            if kind != "string":
                raise wrong("string", True)
            return lit.value if op == "LIKE" else str(lit.value).lower()
        if ftype in ("id", "reference"):
            if kind != "string":
                raise wrong("id", True)
            try:
                return ids.to18(lit.value)
            except ids.MalformedId:
                if op in ("!=",) or lit.value == "":
                    return lit.value
                raise _err(self.text, lit.pos, "INVALID_QUERY_FILTER_OPERATOR", f"invalid ID field: {lit.value}") \
                    from None
        if ftype == "boolean":
            if kind != "bool":
                raise wrong("boolean", False)
            return lit.value
        if ftype in NUMBER_TYPES:
            if kind != "number":
                raise wrong("double" if ftype != "int" else "int", False)
            return float(lit.value)
        if ftype == "date":
            if kind == "date":
                try:
                    return date.fromisoformat(lit.value).isoformat()
                except ValueError:
                    raise _err(self.text, lit.pos, "INVALID_QUERY_FILTER_OPERATOR",
                               f"invalid date: {lit.value}") from None
            if kind == "date_literal":
                start, end = self._range(lit)
                return (start.isoformat(), end.isoformat())
            raise wrong("date", False)
        if ftype == "datetime":
            if kind == "datetime":
                try:
                    return format_datetime(parse_datetime(lit.value))
                except ValueError:
                    raise _err(self.text, lit.pos, "INVALID_QUERY_FILTER_OPERATOR",
                               f"invalid datetime: {lit.value}") from None
            if kind == "date_literal":
                start, end = self._range(lit)
                mk = lambda d: format_datetime(datetime(d.year, d.month, d.day, tzinfo=timezone.utc))  # noqa: E731
                return (mk(start), mk(end))
            raise wrong("dateTime", False)
        raise _err(self.text, lit.pos, "INVALID_FIELD", f"field '{field_label}' can not be filtered in a query call")

    def _range(self, lit: Literal) -> tuple[date, date]:
        name, n = lit.value
        try:
            return date_range(name, n)
        except KeyError:
            raise _err(self.text, lit.pos, "MALFORMED_QUERY", f"unknown date literal {lit.text}") from None

    def _operand(self, obj: ObjectSchema, operand: Operand, group_mode: bool,
                 grouped: dict[str, Any] | None = None) -> tuple[Callable[[Any], Any], FieldSchema, str]:
        """``(getter, field schema for typing, label)`` of an operand. In group mode the getter takes a list of
        records (a group)."""
        if isinstance(operand, FieldRef):
            path = self.resolve(obj, operand)
            get = self.getter(obj, path)
            if group_mode:
                if grouped is not None and path.key not in grouped:
                    raise _err(self.text, operand.pos, "MALFORMED_QUERY",
                               f"field '{operand.text}' can not be used here: it is neither grouped nor aggregated")
                return (lambda grp: get(grp[0]) if grp else None), path.field, operand.text
            return get, path.field, operand.text
        name = operand.name
        if name in AGGREGATES:
            if not group_mode:
                raise _err(self.text, operand.pos, "MALFORMED_QUERY",
                           "Aggregate functions are not supported in this clause")
            return self._aggregate(obj, operand)
        if name in DATE_FUNCTIONS:
            if not isinstance(operand.arg, FieldRef):
                raise _err(self.text, operand.pos, "MALFORMED_QUERY", f"{name} needs a date or datetime field")
            path = self.resolve(obj, operand.arg)
            if path.field.type not in ("date", "datetime"):
                raise _err(self.text, operand.pos, "INVALID_FIELD",
                           f"{name} can only be used with date or datetime fields, not {operand.arg.text}")
            base = self.getter(obj, path)
            ftype = path.field.type
            fn = lambda rec: _date_part(name, base(rec), ftype)  # noqa: E731
            typed = FieldSchema(operand.text, "date" if name == "DAY_ONLY" else "int")
            if group_mode:
                key = operand.text.lower()
                if grouped is not None and key not in grouped:
                    raise _err(self.text, operand.pos, "MALFORMED_QUERY",
                               f"'{operand.text}' can not be used here: it is neither grouped nor aggregated")
                return (lambda grp: fn(grp[0]) if grp else None), typed, operand.text
            return fn, typed, operand.text
        raise _err(self.text, operand.pos, "MALFORMED_QUERY", f"unknown or unsupported function {name}")

    def _aggregate(self, obj: ObjectSchema, call: FuncCall) -> tuple[Callable[[list], Any], FieldSchema, str]:
        name = call.name
        if call.arg is None:
            if name != "COUNT":
                raise _err(self.text, call.pos, "MALFORMED_QUERY", f"{name} needs a field")
            return len, FieldSchema("expr", "int"), call.text
        if not isinstance(call.arg, FieldRef):
            raise _err(self.text, call.pos, "MALFORMED_QUERY", f"{name} needs a field, not a function")
        path = self.resolve(obj, call.arg)
        get = self.getter(obj, path)
        ftype = path.field.type
        if name in ("SUM", "AVG") and ftype not in NUMBER_TYPES:
            raise _err(self.text, call.pos, "MALFORMED_QUERY",
                       f"field {call.arg.text} does not support aggregate operator {name}")
        if name in ("MIN", "MAX") and ftype in ("boolean", "textarea", "multipicklist", "json"):
            raise _err(self.text, call.pos, "MALFORMED_QUERY",
                       f"field {call.arg.text} does not support aggregate operator {name}")

        def values(grp: list) -> list:
            return [v for v in (get(r) for r in grp) if v is not None]
        if name == "COUNT":
            return (lambda grp: len(values(grp))), FieldSchema("expr", "int"), call.text
        if name == "COUNT_DISTINCT":
            return (lambda grp: len({_norm(ftype, v) for v in values(grp)})), FieldSchema("expr", "int"), call.text
        if name == "SUM":
            return (lambda grp: float(sum(values(grp))) if values(grp) else None), FieldSchema("expr", "double"), call.text
        if name == "AVG":
            return (lambda grp: (sum(values(grp)) / len(values(grp))) if values(grp) else None), \
                FieldSchema("expr", "double"), call.text

        def pick(grp: list, biggest: bool) -> Any:
            vals = values(grp)
            if not vals:
                return None
            chooser = max if biggest else min
            return chooser(vals, key=lambda v: _norm(ftype, v))
        return (lambda grp: pick(grp, name == "MAX")), FieldSchema("expr", ftype), call.text

    def condition(self, obj: ObjectSchema, cond: Any, group_mode: bool = False,
                  grouped: dict[str, Any] | None = None) -> Callable[[Any], bool]:
        """Compile a WHERE (or HAVING, in group mode) condition into a predicate."""
        if isinstance(cond, BoolOp):
            parts = [self.condition(obj, c, group_mode, grouped) for c in cond.items]
            if cond.op == "AND":
                return lambda r: all(p(r) for p in parts)
            return lambda r: any(p(r) for p in parts)
        if isinstance(cond, Not):
            inner = self.condition(obj, cond.item, group_mode, grouped)
            return lambda r: not inner(r)
        assert isinstance(cond, Comparison)
        get, fschema, label = self._operand(obj, cond.operand, group_mode, grouped)
        ftype = fschema.type
        op = cond.op
        if op in ("IN_SUB", "NOT_IN_SUB"):
            if ftype not in ("id", "reference"):
                raise _err(self.text, cond.pos, "MALFORMED_QUERY",
                           f"semi join sub-selects are only supported on id fields, not {label}")
            wanted = self.semi_join(cond.subquery)  # type: ignore[arg-type]
            if op == "IN_SUB":
                return lambda r: get(r) in wanted
            return lambda r: get(r) not in wanted
        if op in ("INCLUDES", "EXCLUDES"):
            if ftype != "multipicklist":
                raise _err(self.text, cond.pos, "INVALID_QUERY_FILTER_OPERATOR",
                           f"includes or excludes operator only valid on multipicklist field: {label}")
            options = []
            for lit in cond.values:
                if lit.kind != "string":
                    raise _err(self.text, lit.pos, "INVALID_QUERY_FILTER_OPERATOR",
                               f"value of filter criterion for field '{label}' must be of type string")
                options.append({p.strip().lower() for p in str(lit.value).split(";") if p.strip()})

            def includes(r: Any) -> bool:
                v = get(r)
                have = {p.strip().lower() for p in str(v).split(";")} if v else set()
                return any(opt <= have for opt in options)
            return includes if op == "INCLUDES" else (lambda r: not includes(r))
        if op == "LIKE":
            if ftype not in TEXT:
                raise _err(self.text, cond.pos, "INVALID_QUERY_FILTER_OPERATOR",
                           f"invalid operator on {ftype} field: LIKE ({label})")
            pattern = self._literal(ftype, label, cond.values[0], "LIKE")
            if pattern is None:
                return lambda r: False
            rx = _like_regex(pattern)
            return lambda r: (lambda v: v is not None and rx.fullmatch(str(v)) is not None)(get(r))
        if op in ("IN", "NOT_IN"):
            wanted_values = set()
            for lit in cond.values:
                v = self._literal(ftype, label, lit, "=")
                if isinstance(v, tuple):
                    raise _err(self.text, lit.pos, "MALFORMED_QUERY", "date literals are not allowed in IN lists")
                wanted_values.add(v)
            if op == "IN":
                return lambda r: _norm(ftype, get(r)) in wanted_values
            return lambda r: _norm(ftype, get(r)) not in wanted_values
        value = self._literal(ftype, label, cond.values[0], op)
        if ftype in ("multipicklist",) and op not in ("=", "!="):
            raise _err(self.text, cond.pos, "INVALID_QUERY_FILTER_OPERATOR", "invalid operator on multipicklist field")
        if isinstance(value, tuple):
            start, end = value

            def in_range(r: Any) -> Any:
                v = get(r)
                return None if v is None else (start <= v < end, v)
            tests = {
                "=": lambda r: (lambda t: t is not None and t[0])(in_range(r)),
                "!=": lambda r: (lambda t: t is None or not t[0])(in_range(r)),
                "<": lambda r: (lambda v: v is not None and v < start)(get(r)),
                "<=": lambda r: (lambda v: v is not None and v < end)(get(r)),
                ">": lambda r: (lambda v: v is not None and v >= end)(get(r)),
                ">=": lambda r: (lambda v: v is not None and v >= start)(get(r)),
            }
            return tests[op]
        if value is None:
            if op == "=":
                return lambda r: get(r) is None
            if op == "!=":
                return lambda r: get(r) is not None
            return lambda r: False
        if ftype == "multipicklist":
            wanted_set = {p.strip() for p in str(value).split(";") if p.strip()}
            same = lambda r: (lambda v: v is not None and {p.strip().lower() for p in str(v).split(";")} == wanted_set)(get(r))  # noqa: E731
            return same if op == "=" else (lambda r: not same(r))
        if ftype == "boolean" and op not in ("=", "!="):
            raise _err(self.text, cond.pos, "INVALID_QUERY_FILTER_OPERATOR", f"invalid operator on boolean field: {op}")
        compare = {
            "=": lambda v: v == value, "!=": lambda v: v != value, "<": lambda v: v < value,
            "<=": lambda v: v <= value, ">": lambda v: v > value, ">=": lambda v: v >= value,
        }[op]
        if op == "!=":
            return lambda r: (lambda v: v is None or compare(v))(_norm(ftype, get(r)))
        return lambda r: (lambda v: v is not None and compare(v))(_norm(ftype, get(r)))

    def semi_join(self, sub: Query) -> set:
        """The id values a semi-join subquery selects."""
        obj = self._object(sub.sobject, sub.sobject_pos)
        if len(sub.select) != 1 or not isinstance(sub.select[0], SelectField) or \
                not isinstance(sub.select[0].expr, FieldRef):
            raise _err(self.text, sub.sobject_pos, "MALFORMED_QUERY", "a semi join sub-select must select one id field")
        path = self.resolve(obj, sub.select[0].expr)
        if path.rels or path.field.type not in ("id", "reference"):
            raise _err(self.text, sub.select[0].expr.pos, "MALFORMED_QUERY",
                       "a semi join sub-select must select an id field of its object")
        if sub.group_by or sub.having:
            raise _err(self.text, sub.sobject_pos, "MALFORMED_QUERY", "a semi join sub-select can not be aggregated")
        rows = self._filter(obj, sub)
        rows = self._order_rows(obj, rows, sub.order_by, False)
        rows = self._slice(rows, sub)
        name = path.field.name
        return {r.get(name) for r in rows if r.get(name) is not None}

    # ------------------------------------------------------------------ ordering

    def _order_rows(self, obj: ObjectSchema, rows: list, items: list[OrderItem], group_mode: bool,
                    grouped: dict[str, Any] | None = None) -> list:
        if not items:
            return rows
        keys = []
        for item in items:
            get, fschema, _ = self._operand(obj, item.expr, group_mode, grouped)
            if fschema.type in ("textarea", "multipicklist", "json") and not group_mode:
                raise _err(self.text, item.expr.pos, "INVALID_FIELD",
                           f"field '{fschema.name}' can not be sorted in a query call")
            keys.append((get, fschema.type, item))
        for get, ftype, item in reversed(keys):
            values = [(_norm(ftype, get(r)), r) for r in rows]
            present = [p for p in values if p[0] is not None]
            missing = [p[1] for p in values if p[0] is None]
            present.sort(key=lambda p: p[0], reverse=item.descending)
            nulls_last = item.nulls_last if item.nulls_last is not None else item.descending
            ordered = [p[1] for p in present]
            rows = ordered + missing if nulls_last else missing + ordered
        return rows

    def _slice(self, rows: list, q: Query) -> list:
        start = q.offset or 0
        if start > MAX_OFFSET:
            raise OrgError("NUMBER_OUTSIDE_VALID_RANGE", f"Maximum SOQL offset allowed is {MAX_OFFSET}")
        rows = rows[start:]
        if q.limit is not None:
            rows = rows[: q.limit]
        return rows

    def _filter(self, obj: ObjectSchema, q: Query) -> list[dict]:
        table: Any = self.tables[obj.name].values()
        if self.bin.get(obj.name):
            table = [*table, *(rec for rec, _ in self.bin[obj.name].values())]
        if q.where is None:
            return list(table)
        pred = self.condition(obj, q.where)
        return [r for r in table if pred(r)]

    # ------------------------------------------------------------------ select lists

    def _expand(self, obj: ObjectSchema, q: Query) -> list:
        items: list = []
        for item in q.select:
            if isinstance(item, SelectFields):
                if item.kind in ("ALL", "CUSTOM") and (q.limit is None or q.limit > FIELDS_LIMIT):
                    raise _err(self.text, item.pos, "MALFORMED_QUERY",
                               f"The SOQL FIELDS function must have a LIMIT of at most {FIELDS_LIMIT}")
                for f in obj.fields.values():
                    custom = f.name.endswith("__c")
                    if item.kind == "ALL" or (item.kind == "CUSTOM") == custom:
                        items.append(SelectField(FieldRef((f.name,), item.pos)))
            else:
                items.append(item)
        return items

    def run(self, q: Query) -> dict[str, Any]:
        obj = self._object(q.sobject, q.sobject_pos)
        items = self._expand(obj, q)
        is_aggregate = bool(q.group_by) or any(
            isinstance(i, SelectField) and isinstance(i.expr, FuncCall) and i.expr.name in AGGREGATES for i in items)
        if any(isinstance(i, SelectField) and isinstance(i.expr, FuncCall) and i.expr.name == "COUNT"
               and i.expr.arg is None for i in items):
            return self._count_only(obj, q, items)
        if is_aggregate:
            return self._aggregate_query(obj, q, items)
        if q.having is not None:
            raise _err(self.text, q.sobject_pos, "MALFORMED_QUERY", "HAVING needs GROUP BY or an aggregate function")
        columns: list[tuple[str, Any]] = []
        seen: set[str] = set()
        for item in items:
            if isinstance(item, SelectSubquery):
                columns.append(("child", self._child(obj, item.query)))
                continue
            assert isinstance(item, SelectField)
            expr = item.expr
            if item.alias:
                raise _err(self.text, expr.pos, "MALFORMED_QUERY", "Only aggregate expressions use field aliasing")
            if isinstance(expr, FuncCall):
                if expr.name in LABEL_FUNCTIONS and isinstance(expr.arg, FieldRef):
                    expr = expr.arg
                else:
                    raise _err(self.text, expr.pos, "MALFORMED_QUERY",
                               f"{expr.name} can only be used in aggregate queries or is not supported")
            path = self.resolve(obj, expr)
            if path.key in seen:
                raise _err(self.text, expr.pos, "MALFORMED_QUERY", f"duplicate field selected: {expr.text}")
            seen.add(path.key)
            columns.append(("field", path))
        rows = self._filter(obj, q)
        rows = self._order_rows(obj, rows, q.order_by, False)
        rows = self._slice(rows, q)
        records = []
        for rec in rows:
            out: dict[str, Any] = {"attributes": self._attributes(obj, rec)}
            for kind, col in columns:
                if kind == "field":
                    self._emit(out, obj, rec, col)
                else:
                    out[col[0]] = col[1](rec)
            records.append(out)
        return {"totalSize": len(records), "done": True, "records": records}

    def _child(self, parent: ObjectSchema, sub: Query) -> tuple[str, Callable[[dict], Any]]:
        rel = parent.child_relationship(sub.sobject)
        if rel is None:
            raise _err(self.text, sub.sobject_pos, "INVALID_TYPE",
                       f"Didn't understand relationship '{sub.sobject}' in FROM part of query call. If you are "
                       "attempting to use a custom relationship, be sure to append the '__r' after the custom "
                       "relationship name. Please reference your WSDL or the describe call for the appropriate names.")
        child = self.schema.objects[rel.child_object]
        if any(isinstance(i, SelectSubquery) for i in sub.select):
            raise _err(self.text, sub.sobject_pos, "MALFORMED_QUERY", "nested child subqueries are not supported")
        if sub.group_by or sub.having:
            raise _err(self.text, sub.sobject_pos, "MALFORMED_QUERY", "child subqueries can not be aggregated")
        paths = []
        for item in self._expand(child, sub):
            expr = item.expr
            if isinstance(expr, FuncCall):
                if expr.name in LABEL_FUNCTIONS and isinstance(expr.arg, FieldRef):
                    expr = expr.arg
                else:
                    raise _err(self.text, expr.pos, "MALFORMED_QUERY", f"{expr.name} is not allowed in a child subquery")
            if item.alias:
                raise _err(self.text, expr.pos, "MALFORMED_QUERY", "Only aggregate expressions use field aliasing")
            paths.append(self.resolve(child, expr))
        rows = self._filter(child, sub)
        rows = self._order_rows(child, rows, sub.order_by, False)
        by_parent: dict[str, list] = defaultdict(list)
        for r in rows:
            pid = r.get(rel.field)
            if pid:
                by_parent[pid].append(r)

        def build(parent_rec: dict) -> Any:
            mine = self._slice(by_parent.get(parent_rec["Id"], []), sub)
            if not mine:
                return None
            out_rows = []
            for r in mine:
                out: dict[str, Any] = {"attributes": self._attributes(child, r)}
                for p in paths:
                    self._emit(out, child, r, p)
                out_rows.append(out)
            return {"totalSize": len(out_rows), "done": True, "records": out_rows}
        return rel.name, build

    def _count_only(self, obj: ObjectSchema, q: Query, items: list) -> dict[str, Any]:
        if len(items) != 1 or q.group_by:
            pos = items[0].expr.pos if isinstance(items[0], SelectField) else q.sobject_pos
            raise _err(self.text, pos, "MALFORMED_QUERY", "COUNT() must be the only element in the SELECT list")
        if q.order_by:
            raise _err(self.text, q.sobject_pos, "MALFORMED_QUERY", "COUNT() can not be used with ORDER BY")
        rows = self._slice(self._filter(obj, q), q)
        return {"totalSize": len(rows), "done": True, "records": []}

    def _aggregate_query(self, obj: ObjectSchema, q: Query, items: list) -> dict[str, Any]:
        grouped: dict[str, Any] = {}
        group_getters = []
        for g in q.group_by:
            if isinstance(g, FieldRef):
                path = self.resolve(obj, g)
                if path.field.type in ("textarea", "multipicklist", "json", "double", "currency", "percent"):
                    raise _err(self.text, g.pos, "MALFORMED_QUERY", f"field '{g.text}' can not be grouped in a query call")
                grouped[path.key] = path
                get = self.getter(obj, path)
                group_getters.append((get, path.field.type))
            elif isinstance(g, FuncCall) and g.name in DATE_FUNCTIONS:
                get, fschema, _ = self._operand(obj, g, False)
                grouped[g.text.lower()] = g
                group_getters.append((get, fschema.type))
            else:
                raise _err(self.text, g.pos, "MALFORMED_QUERY", "GROUP BY supports fields and date functions only")
        columns: list[tuple[str, Callable[[list], Any]]] = []
        expr_n = 0
        used: set[str] = set()
        for item in items:
            if isinstance(item, SelectSubquery):
                raise _err(self.text, item.query.sobject_pos, "MALFORMED_QUERY",
                           "child subqueries are not allowed in aggregate queries")
            expr = item.expr
            if isinstance(expr, FieldRef):
                path = self.resolve(obj, expr)
                if path.key not in grouped:
                    raise _err(self.text, expr.pos, "MALFORMED_QUERY", f"Field must be grouped or aggregated: {expr.text}")
                get = self.getter(obj, path)
                key = item.alias or path.leaf
                columns.append((key, (lambda g: (lambda grp: g(grp[0]) if grp else None))(get)))
            else:
                get_g, _, _ = self._operand(obj, expr, True, grouped)
                if item.alias:
                    key = item.alias
                else:
                    key = f"expr{expr_n}"
                    expr_n += 1
                columns.append((key, get_g))
            if key.lower() in used:
                raise _err(self.text, expr.pos, "MALFORMED_QUERY", f"duplicate alias: {key}")
            used.add(key.lower())
        rows = self._filter(obj, q)
        groups: dict[tuple, list] = {}
        if group_getters:
            for r in rows:
                k = tuple(_norm(t, g(r)) for g, t in group_getters)
                groups.setdefault(k, []).append(r)
            group_list = list(groups.values())
        else:
            group_list = [rows]
        if q.having is not None:
            pred = self.condition(obj, q.having, True, grouped)
            group_list = [g for g in group_list if pred(g)]
        group_list = self._order_rows(obj, group_list, q.order_by, True, grouped)
        group_list = self._slice(group_list, q)
        records = []
        for grp in group_list:
            out: dict[str, Any] = {"attributes": {"type": "AggregateResult"}}
            for key, get_g in columns:
                out[key] = get_g(grp)
            records.append(out)
        return {"totalSize": len(records), "done": True, "records": records}


def iter_ids(result: dict[str, Any]) -> Iterable[str]:
    """The ``Id`` of each record of a query result (a convenience for tests and suites)."""
    for rec in result.get("records", []):
        if "Id" in rec:
            yield rec["Id"]
