"""A small, safe reader of spreadsheet formulas: parse one (as openpyxl gives it, ``=SUM(B2:B7)``), list the
cells it refers to, and compute its value over a worksheet's cells. It is the Calc evaluator's test of "a formula
that sums B2:B7" without insisting on one spelling: ``=B2+B3+B4+B5+B6+B7``, ``=SUM(B2:B4)+SUM(B5:B7)`` and
``=SUM(B7:B2)`` refer to the same cells and have the same value.

Agent output is data: a formula is tokenized and parsed here into a tree of numbers, cell references, ranges,
operators and a fixed table of functions (``FUNCTIONS``); nothing is ever passed to ``eval``. What it cannot
compute (another sheet, a text operand, an unknown function, an error value) raises :class:`FormulaError`.

Semantics follow Calc and Excel where it matters here: an empty cell is 0 in arithmetic; the range functions
skip empty and text cells; ``-2^2`` is 4 (unary minus binds tighter than ``^``); ``%`` divides by 100.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence, Union

__all__ = ["FormulaError", "Formula", "parse", "references", "evaluate", "cell_range"]


class FormulaError(ValueError):
    """A formula this reader cannot parse or compute; the message says why."""


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Ref:
    cell: str  # "B2" (no $, upper case)


@dataclass(frozen=True)
class Range:
    first: str
    last: str


@dataclass(frozen=True)
class Unary:
    op: str
    operand: "Node"


@dataclass(frozen=True)
class Binary:
    op: str
    left: "Node"
    right: "Node"


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple["Node", ...]


Node = Union[Num, Ref, Range, Unary, Binary, Call]

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<func>(?:_xlfn\.|_xlws\.|com\.microsoft\.)?[A-Za-z][A-Za-z0-9._]*(?=\s*\())
  | (?P<ref>(?:(?:'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_.]*)[!.])?\$?[A-Za-z]{1,3}\$?\d+
            (?::(?:(?:'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_.]*)[!.])?\$?[A-Za-z]{1,3}\$?\d+)?)
  | (?P<op><=|>=|<>|[-+*/^%(),;&=<>])
  | (?P<other>.)
""", re.X)
_CELL = re.compile(r"(?:(?P<sheet>'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_.]*)[!.])?\$?(?P<col>[A-Za-z]{1,3})\$?(?P<row>\d+)")


def _cell(text: str, sheet: str | None) -> str:
    match = _CELL.fullmatch(text)
    if match is None:
        raise FormulaError(f"not a cell reference: {text!r}")
    if match.group("sheet"):
        name = match.group("sheet").strip("'").replace("''", "'")
        if sheet is None or name != sheet:
            raise FormulaError(f"refers to another sheet ({name!r})")
    return f"{match.group('col').upper()}{match.group('row')}"


class _Parser:
    def __init__(self, text: str, sheet: str | None) -> None:
        self.sheet = sheet
        self.tokens: list[tuple[str, str]] = []
        for match in _TOKEN.finditer(text):
            kind = match.lastgroup or "other"
            if kind == "space":
                continue
            if kind == "other":
                raise FormulaError(f"unexpected character {match.group()!r}")
            self.tokens.append((kind, match.group()))
        self.pos = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None or (value is not None and token[1] != value):
            raise FormulaError(f"expected {value or 'more'} at token {self.pos + 1}")
        self.pos += 1
        return token

    def parse(self) -> Node:
        node = self.additive()
        if self.peek() is not None:
            raise FormulaError(f"unexpected {self.peek()[1]!r}")  # type: ignore[index]
        return node

    def additive(self) -> Node:
        node = self.multiplicative()
        while self.peek() in (("op", "+"), ("op", "-")):
            node = Binary(self.take()[1], node, self.multiplicative())
        return node

    def multiplicative(self) -> Node:
        node = self.power()
        while self.peek() in (("op", "*"), ("op", "/")):
            node = Binary(self.take()[1], node, self.power())
        return node

    def power(self) -> Node:
        node = self.unary()
        while self.peek() == ("op", "^"):
            node = Binary(self.take()[1], node, self.unary())
        return node

    def unary(self) -> Node:
        if self.peek() in (("op", "-"), ("op", "+")):
            return Unary(self.take()[1], self.unary())
        node = self.primary()
        while self.peek() == ("op", "%"):
            self.take()
            node = Binary("/", node, Num(100.0))
        return node

    def primary(self) -> Node:
        kind, text = self.take()
        if kind == "number":
            return Num(float(text))
        if kind == "ref":
            first, _, last = text.partition(":")
            return Range(_cell(first, self.sheet), _cell(last, self.sheet)) if last else Ref(_cell(first, self.sheet))
        if kind == "func":
            name = re.sub(r"^(_xlfn\.|_xlws\.|com\.microsoft\.)", "", text, flags=re.I).upper()
            self.take("(")
            args: list[Node] = []
            if self.peek() != ("op", ")"):
                args.append(self.additive())
                while self.peek() in (("op", ","), ("op", ";")):
                    self.take()
                    args.append(self.additive())
            self.take(")")
            return Call(name, tuple(args))
        if (kind, text) == ("op", "("):
            node = self.additive()
            self.take(")")
            return node
        raise FormulaError(f"unexpected {text!r}")


@dataclass(frozen=True)
class Formula:
    text: str
    tree: Node


def parse(text: Any, sheet: str | None = None) -> Formula:
    """The formula ``text`` (with or without its leading ``=``) parsed; ``sheet``: the name a reference may
    carry for the sheet the formula lives on (any other sheet is a :class:`FormulaError`)."""
    source = str(text or "").strip()
    if source.startswith("="):
        source = source[1:]
    if not source:
        raise FormulaError("empty formula")
    return Formula(source, _Parser(source, sheet).parse())


def _split(cell: str) -> tuple[int, int]:
    match = re.fullmatch(r"([A-Z]+)(\d+)", cell)
    assert match is not None
    col = 0
    for ch in match.group(1):
        col = col * 26 + ord(ch) - 64
    return col, int(match.group(2))


def _name(col: int, row: int) -> str:
    letters = ""
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(65 + rest) + letters
    return f"{letters}{row}"


def cell_range(first: str, last: str) -> list[str]:
    """Every cell of the rectangle ``first:last``, in either corner order, row by row."""
    (c1, r1), (c2, r2) = _split(first), _split(last)
    if abs(c2 - c1) * abs(r2 - r1) > 100_000:
        raise FormulaError(f"range {first}:{last} is too large")
    return [_name(c, r) for r in range(min(r1, r2), max(r1, r2) + 1) for c in range(min(c1, c2), max(c1, c2) + 1)]


def references(formula: Formula) -> set[str]:
    """Every cell the formula refers to (ranges expanded, ``$`` dropped)."""
    out: set[str] = set()

    def walk(node: Node) -> None:
        if isinstance(node, Ref):
            out.add(node.cell)
        elif isinstance(node, Range):
            out.update(cell_range(node.first, node.last))
        elif isinstance(node, Unary):
            walk(node.operand)
        elif isinstance(node, Binary):
            walk(node.left)
            walk(node.right)
        elif isinstance(node, Call):
            for arg in node.args:
                walk(arg)
    walk(formula.tree)
    return out


def _numbers(values: Sequence[Any]) -> list[float]:
    return [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]


def _nonempty(name: str, values: list[float]) -> list[float]:
    if not values:
        raise FormulaError(f"{name} of no numbers")
    return values


def _kth(name: str, values: list[float], k: float, largest: bool) -> float:
    n = int(k)
    if not 1 <= n <= len(values):
        raise FormulaError(f"{name}: k={k:g} out of range")
    return sorted(values, reverse=largest)[n - 1]


# name -> its computation over the arguments, each a list of values (a range's cells, or one number)
FUNCTIONS: dict[str, Callable[[list[list[Any]]], float]] = {
    "SUM": lambda a: math.fsum(_numbers([v for x in a for v in x])),
    "AVERAGE": lambda a: statistics.fmean(_nonempty("AVERAGE", _numbers([v for x in a for v in x]))),
    "MIN": lambda a: min(_numbers([v for x in a for v in x]) or [0.0]),
    "MAX": lambda a: max(_numbers([v for x in a for v in x]) or [0.0]),
    "COUNT": lambda a: float(len(_numbers([v for x in a for v in x]))),
    "PRODUCT": lambda a: math.prod(_numbers([v for x in a for v in x])),
    "MEDIAN": lambda a: statistics.median(_nonempty("MEDIAN", _numbers([v for x in a for v in x]))),
    "LARGE": lambda a: _kth("LARGE", _numbers(a[0]), _scalar(a, 1), True),
    "SMALL": lambda a: _kth("SMALL", _numbers(a[0]), _scalar(a, 1), False),
    "ABS": lambda a: abs(_scalar(a, 0)),
    "ROUND": lambda a: _round(_scalar(a, 0), _scalar(a, 1) if len(a) > 1 else 0.0),
}
_ARITY = {"LARGE": (2, 2), "SMALL": (2, 2), "ABS": (1, 1), "ROUND": (1, 2)}


def _scalar(args: list[list[Any]], index: int) -> float:
    values = args[index]
    if len(values) != 1 or not isinstance(values[0], (int, float)) or isinstance(values[0], bool):
        raise FormulaError(f"argument {index + 1} is not one number")
    return float(values[0])


def _round(x: float, digits: float) -> float:
    factor = 10 ** int(digits)
    return math.copysign(math.floor(abs(x) * factor + 0.5) / factor, x)


def evaluate(formula: Formula, cell: Callable[[str], Any]) -> float:
    """The formula's value; ``cell(name)`` gives a referenced cell's value (a number, text, or None for empty;
    a cell holding a formula should give that formula's value)."""

    def scalar(node: Node) -> float:
        if isinstance(node, Num):
            return node.value
        if isinstance(node, Ref):
            value = cell(node.cell)
            if value is None:
                return 0.0
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise FormulaError(f"{node.cell} holds {value!r}, not a number")
            return float(value)
        if isinstance(node, Range):
            raise FormulaError(f"the range {node.first}:{node.last} is used as one number")
        if isinstance(node, Unary):
            value = scalar(node.operand)
            return -value if node.op == "-" else value
        if isinstance(node, Binary):
            a, b = scalar(node.left), scalar(node.right)
            if node.op == "+":
                return a + b
            if node.op == "-":
                return a - b
            if node.op == "*":
                return a * b
            if node.op == "/":
                if b == 0:
                    raise FormulaError("division by zero")
                return a / b
            if node.op == "^":
                try:
                    return float(a ** b)
                except (OverflowError, ZeroDivisionError) as exc:
                    raise FormulaError(f"{a:g}^{b:g}: {exc}") from None
            raise FormulaError(f"operator {node.op!r} is not supported")
        if isinstance(node, Call):
            if node.name not in FUNCTIONS:
                raise FormulaError(f"function {node.name} is not supported (supported: {', '.join(FUNCTIONS)})")
            low, high = _ARITY.get(node.name, (1, 255))
            if not low <= len(node.args) <= high:
                raise FormulaError(f"{node.name} takes {low}..{high} arguments, got {len(node.args)}")
            args = [[cell(c) for c in cell_range(a.first, a.last)] if isinstance(a, Range) else [scalar(a)]
                    for a in node.args]
            try:
                return float(FUNCTIONS[node.name](args))
            except (ValueError, statistics.StatisticsError, OverflowError) as exc:
                if isinstance(exc, FormulaError):
                    raise
                raise FormulaError(f"{node.name}: {exc}") from None
        raise FormulaError(f"cannot compute {node!r}")

    return scalar(formula.tree)


def sheet_cells(sheet: Any, cached: Mapping[str, Any] | None = None) -> Callable[[str], Any]:
    """``cell(name)`` for :func:`evaluate` over an openpyxl worksheet loaded with its formulas: a constant as
    stored, a formula computed recursively (a cycle is a :class:`FormulaError`); ``cached``: values to use for
    formulas this reader cannot compute (the workbook's values as Calc saved them)."""
    computing: list[str] = []
    memo: dict[str, Any] = {}

    def cell(name: str) -> Any:
        if name in memo:
            return memo[name]
        value = sheet[name].value
        text = getattr(value, "text", value)  # an array formula
        if isinstance(text, str) and text.startswith("="):
            if name in computing:
                raise FormulaError(f"circular reference through {name}")
            computing.append(name)
            try:
                value = evaluate(parse(text, sheet.title), cell)
            except FormulaError:
                if cached is None or cached.get(name) is None:
                    raise
                value = cached[name]
            finally:
                computing.pop()
        memo[name] = value
        return value
    return cell
