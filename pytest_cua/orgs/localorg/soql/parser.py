"""Parse SOQL text into a typed tree with the lark grammar in ``grammar.lark``.

``parse(text) -> Query``; a query outside the grammar raises ``OrgError("MALFORMED_QUERY")`` whose message shows
the query line, a caret under the offending position and ``ERROR at Row:r:Column:c``, as Salesforce does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Union

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from pytest_cua.orgs.localorg.errors import OrgError

MAX_QUERY_LENGTH = 100_000

_PARSER = Lark((Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8"), parser="lalr",
               propagate_positions=True, maybe_placeholders=False)


@dataclass(frozen=True)
class Pos:
    """Line and column (1-based) of a node in the query text."""

    line: int = 1
    column: int = 1


@dataclass
class FieldRef:
    """A field path: ``Name``, ``Owner.Name``, ``Account.Owner.Email``."""

    path: tuple[str, ...]
    pos: Pos

    @property
    def text(self) -> str:
        return ".".join(self.path)


@dataclass
class FuncCall:
    """A function: ``COUNT()``, ``SUM(Amount)``, ``CALENDAR_YEAR(CloseDate)``, ``toLabel(Status)``."""

    name: str  # upper case
    arg: "FieldRef | FuncCall | None"
    pos: Pos

    @property
    def text(self) -> str:
        return f"{self.name}({self.arg.text if self.arg else ''})"


Operand = Union[FieldRef, FuncCall]


@dataclass
class Literal:
    """A value in a condition. ``kind``: string, number, date, datetime, date_literal, date_n_literal, null, bool."""

    kind: str
    value: Any
    text: str
    pos: Pos


@dataclass
class SelectField:
    expr: Operand
    alias: str | None = None


@dataclass
class SelectSubquery:
    query: "Query"


@dataclass
class SelectFields:
    kind: str  # ALL, STANDARD, CUSTOM
    pos: Pos


@dataclass
class Comparison:
    """``operand op value``; ``op`` is one of = != < > <= >= LIKE IN NOT_IN INCLUDES EXCLUDES IN_SUB NOT_IN_SUB."""

    op: str
    operand: Operand
    values: list[Literal] = field(default_factory=list)
    subquery: "Query | None" = None
    pos: Pos = Pos()


@dataclass
class BoolOp:
    op: str  # AND, OR
    items: list["Condition"]


@dataclass
class Not:
    item: "Condition"


Condition = Union[Comparison, BoolOp, Not]


@dataclass
class OrderItem:
    expr: Operand
    descending: bool = False
    nulls_last: bool | None = None  # None: Salesforce's default (first for ASC, last for DESC)


@dataclass
class Query:
    """A parsed SELECT (the outer query, a child subquery or a semi-join)."""

    select: list[Union[SelectField, SelectSubquery, SelectFields]]
    sobject: str
    sobject_pos: Pos
    where: Condition | None = None
    group_by: list[Operand] = field(default_factory=list)
    having: Condition | None = None
    order_by: list[OrderItem] = field(default_factory=list)
    limit: int | None = None
    offset: int | None = None
    text: str = ""


def _pos(item: Any) -> Pos:
    meta = getattr(item, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return Pos(meta.line, meta.column)
    if isinstance(item, Token) and item.line is not None:
        return Pos(item.line, item.column or 1)
    return Pos()


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "'": "'", '"': '"', "\\": "\\"}


def unescape(raw: str) -> str:
    """The value of a quoted SOQL string (without quotes); ``\\%`` and ``\\_`` stay escaped for LIKE."""
    out = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
            elif nxt in "%_":
                out.append("\\" + nxt)
            else:
                raise ValueError(f"invalid escape sequence \\{nxt}")
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


@v_args(meta=True)
class _Builder(Transformer):
    def start(self, meta: Any, children: list) -> Query:
        return children[0]

    def _query(self, meta: Any, children: list) -> Query:
        select, (name, pos) = children[0], children[1]
        q = Query(select=select, sobject=name, sobject_pos=pos)
        for part in children[2:]:
            kind, value = part
            if kind == "where":
                q.where = value
            elif kind == "group_by":
                q.group_by = value
            elif kind == "having":
                q.having = value
            elif kind == "order_by":
                q.order_by = value
            elif kind == "limit":
                q.limit = value
            elif kind == "offset":
                q.offset = value
        return q

    query = _query
    subquery = _query

    def object_name(self, meta: Any, children: list) -> tuple[str, Pos]:
        return str(children[0]), _pos(children[0])

    def select_list(self, meta: Any, children: list) -> list:
        return list(children)

    def sel_field(self, meta: Any, children: list) -> SelectField:
        return SelectField(children[0], children[1] if len(children) > 1 else None)

    sel_func = sel_field

    def sel_subquery(self, meta: Any, children: list) -> SelectSubquery:
        return SelectSubquery(children[0])

    def sel_fields(self, meta: Any, children: list) -> SelectFields:
        return SelectFields(str(children[0]).upper(), _pos(children[0]))

    def alias(self, meta: Any, children: list) -> str:
        return str(children[0])

    def field_path(self, meta: Any, children: list) -> FieldRef:
        return FieldRef(tuple(str(c) for c in children), _pos(children[0]))

    def func(self, meta: Any, children: list) -> FuncCall:
        return FuncCall(str(children[0]).upper(), children[1] if len(children) > 1 else None, _pos(children[0]))

    def where_clause(self, meta: Any, children: list) -> tuple[str, Condition]:
        return "where", children[0]

    def having(self, meta: Any, children: list) -> tuple[str, Condition]:
        return "having", children[0]

    def and_chain(self, meta: Any, children: list) -> BoolOp:
        return BoolOp("AND", list(children))

    def or_chain(self, meta: Any, children: list) -> BoolOp:
        return BoolOp("OR", list(children))

    def not_(self, meta: Any, children: list) -> Not:
        return Not(children[0])

    def _pos_of(self, operand: Operand) -> Pos:
        return operand.pos

    def cmp(self, meta: Any, children: list) -> Comparison:
        operand, op, value = children
        op = "!=" if str(op) == "<>" else str(op)
        return Comparison(op, operand, [value], pos=operand.pos)

    def like(self, meta: Any, children: list) -> Comparison:
        return Comparison("LIKE", children[0], [children[1]], pos=children[0].pos)

    def in_(self, meta: Any, children: list) -> Comparison:
        return Comparison("IN", children[0], children[1], pos=children[0].pos)

    def not_in(self, meta: Any, children: list) -> Comparison:
        return Comparison("NOT_IN", children[0], children[1], pos=children[0].pos)

    def in_sub(self, meta: Any, children: list) -> Comparison:
        return Comparison("IN_SUB", children[0], subquery=children[1], pos=children[0].pos)

    def not_in_sub(self, meta: Any, children: list) -> Comparison:
        return Comparison("NOT_IN_SUB", children[0], subquery=children[1], pos=children[0].pos)

    def includes(self, meta: Any, children: list) -> Comparison:
        return Comparison("INCLUDES", children[0], children[1], pos=children[0].pos)

    def excludes(self, meta: Any, children: list) -> Comparison:
        return Comparison("EXCLUDES", children[0], children[1], pos=children[0].pos)

    def value_list(self, meta: Any, children: list) -> list[Literal]:
        return list(children)

    def string(self, meta: Any, children: list) -> Literal:
        tok = children[0]
        return Literal("string", unescape(str(tok)[1:-1]), str(tok), _pos(tok))

    def number(self, meta: Any, children: list) -> Literal:
        tok = str(children[0])
        value: float | int = float(tok) if any(c in tok for c in ".eE") else int(tok)
        return Literal("number", value, tok, _pos(children[0]))

    def date(self, meta: Any, children: list) -> Literal:
        return Literal("date", str(children[0]), str(children[0]), _pos(children[0]))

    def datetime(self, meta: Any, children: list) -> Literal:
        return Literal("datetime", str(children[0]), str(children[0]), _pos(children[0]))

    def date_literal(self, meta: Any, children: list) -> Literal:
        return Literal("date_literal", (str(children[0]).upper(), None), str(children[0]), _pos(children[0]))

    def date_n_literal(self, meta: Any, children: list) -> Literal:
        name, n = str(children[0]).split(":")
        return Literal("date_literal", (name.upper(), int(n)), str(children[0]), _pos(children[0]))

    def null(self, meta: Any, children: list) -> Literal:
        return Literal("null", None, "null", Pos(meta.line, meta.column) if not meta.empty else Pos())

    def true(self, meta: Any, children: list) -> Literal:
        return Literal("bool", True, "true", Pos(meta.line, meta.column) if not meta.empty else Pos())

    def false(self, meta: Any, children: list) -> Literal:
        return Literal("bool", False, "false", Pos(meta.line, meta.column) if not meta.empty else Pos())

    def group_by(self, meta: Any, children: list) -> tuple[str, list]:
        return "group_by", list(children)

    def order_by(self, meta: Any, children: list) -> tuple[str, list]:
        return "order_by", list(children)

    def order_item(self, meta: Any, children: list) -> OrderItem:
        item = OrderItem(children[0])
        for extra in children[1:]:
            if isinstance(extra, Token) and extra.type == "DIRECTION":
                item.descending = str(extra).upper() == "DESC"
            elif isinstance(extra, bool):
                item.nulls_last = extra
        return item

    def nulls(self, meta: Any, children: list) -> bool:
        return str(children[0]).upper() == "LAST"

    def limit(self, meta: Any, children: list) -> tuple[str, int]:
        return "limit", int(children[0])

    def offset(self, meta: Any, children: list) -> tuple[str, int]:
        return "offset", int(children[0])

    def for_clause(self, meta: Any, children: list) -> tuple[str, None]:
        return "for", None


def position_message(text: str, line: int, column: int, detail: str) -> str:
    """Salesforce's layout of a query error: the line, a caret, ``ERROR at Row:r:Column:c`` and the detail."""
    lines = text.splitlines() or [""]
    shown = lines[line - 1] if 0 < line <= len(lines) else lines[-1]
    return f"\n{shown}\n{' ' * max(column - 1, 0)}^\nERROR at Row:{line}:Column:{column}\n{detail}"


def malformed(text: str, line: int, column: int, detail: str) -> OrgError:
    """MALFORMED_QUERY with the position."""
    return OrgError("MALFORMED_QUERY", position_message(text, line, column, detail))


@lru_cache(maxsize=256)
def _parse_cached(text: str) -> Query:
    try:
        tree = _PARSER.parse(text)
    except UnexpectedEOF:
        lines = text.splitlines() or [""]
        raise malformed(text, len(lines), len(lines[-1]) + 1, "unexpected token: '<EOF>'") from None
    except UnexpectedToken as exc:
        tok = exc.token
        lines = text.splitlines() or [""]
        if tok.type == "$END":
            shown, line, column = "<EOF>", len(lines), len(lines[-1].rstrip()) + 1
        else:
            shown = str(tok)
            line = exc.line if exc.line and exc.line > 0 else len(lines)
            column = exc.column if exc.column and exc.column > 0 else len(lines[-1]) + 1
        raise malformed(text, line, column, f"unexpected token: '{shown}'") from None
    except UnexpectedCharacters as exc:
        raise malformed(text, exc.line, exc.column, f"unexpected token: '{exc.char}'") from None
    except UnexpectedInput as exc:  # pragma: no cover - other lark input errors
        raise malformed(text, getattr(exc, "line", 1), getattr(exc, "column", 1), "unexpected input") from None
    try:
        query = _Builder().transform(tree)
    except VisitError as exc:
        raise OrgError("MALFORMED_QUERY", f"invalid query: {exc.orig_exc}") from None
    query.text = text
    return query


def parse(text: str) -> Query:
    """Parse a SOQL query (``Query`` trees are cached: treat them as read-only)."""
    if len(text) > MAX_QUERY_LENGTH:
        raise OrgError("MALFORMED_QUERY", f"query is longer than {MAX_QUERY_LENGTH} characters")
    return _parse_cached(text)

