"""A small, safe evaluator for validation-rule formulas (a subset of Salesforce's formula language).

Formulas are parsed with a lark grammar into a tree and interpreted here; nothing is ever handed to Python's
``eval``. Supported: literals (numbers, 'strings', TRUE, FALSE, NULL), field references (``Amount``,
``Account.Name``), operators ``+ - * / &``, ``= == != <> < > <= >=``, ``&& ||``, ``!`` and the functions in
``FUNCTIONS``. A formula outside the subset raises ``FormulaUnsupported``; the store then does not enforce the
rule (and says so in ``Org.unenforced_rules``).
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from typing import Any, Callable

from lark import Lark, Token, Tree
from lark.exceptions import LarkError

from pytest_cua.orgs.localorg.values import now, today

_GRAMMAR = r"""
?start: expr
?expr: or_expr
?or_expr: and_expr (OR_OP and_expr)*
?and_expr: cmp (AND_OP cmp)*
?cmp: add (CMP_OP add)?
?add: mul (ADD_OP mul)*
?mul: unary (MUL_OP unary)*
?unary: "!" unary -> not_op
      | "-" unary -> neg
      | atom
?atom: NUMBER -> number
     | STRING -> string
     | TRUE -> true
     | FALSE -> false
     | NULL -> null
     | NAME "(" [expr ("," expr)*] ")" -> call
     | NAME ("." NAME)* -> field
     | "(" expr ")"
OR_OP: "||"
AND_OP: "&&"
CMP_OP: "==" | "=" | "!=" | "<>" | "<=" | ">=" | "<" | ">"
ADD_OP: "+" | "-" | "&"
MUL_OP: "*" | "/"
TRUE.2: /TRUE\b/i
FALSE.2: /FALSE\b/i
NULL.2: /NULL\b/i
NAME: /[A-Za-z_][A-Za-z0-9_]*/
NUMBER: /\d+(\.\d+)?/
STRING: /'(?:[^'\\]|\\.)*'/ | /"(?:[^"\\]|\\.)*"/
COMMENT: /\/\*(.|\n)*?\*\//
%import common.WS
%ignore WS
%ignore COMMENT
"""

_PARSER = Lark(_GRAMMAR, parser="lalr", maybe_placeholders=False)
MAX_LENGTH = 5000


class FormulaUnsupported(ValueError):
    """The formula is not in the supported subset (or does not parse)."""


@lru_cache(maxsize=512)
def parse(formula: str) -> Tree:
    """Parse ``formula``; raise ``FormulaUnsupported`` when it is not in the subset."""
    if len(formula) > MAX_LENGTH:
        raise FormulaUnsupported(f"formula longer than {MAX_LENGTH} characters")
    try:
        tree = _PARSER.parse(formula)
    except LarkError as exc:
        raise FormulaUnsupported(f"formula does not parse: {exc}") from None
    _check(tree)
    return tree


def _check(tree: Tree) -> None:
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Tree):
            if node.data == "call":
                name = str(node.children[0]).upper()
                if name not in FUNCTIONS:
                    raise FormulaUnsupported(f"function {name} is not supported")
            stack.extend(node.children)


class Context:
    """What a formula can see: ``resolve(path)`` for field values (path of names, e.g. ``("Account", "Name")``),
    the previous version of the record (None for a new record) and a resolver for it."""

    def __init__(self, resolve: Callable[[tuple[str, ...]], Any],
                 resolve_prior: Callable[[tuple[str, ...]], Any] | None = None, is_new: bool = True) -> None:
        self.resolve = resolve
        self.resolve_prior = resolve_prior
        self.is_new = is_new


def _blank(v: Any) -> bool:
    return v is None or v == ""


def _num(v: Any) -> float | None:
    if _blank(v):
        return None
    if isinstance(v, bool):
        raise FormulaUnsupported("arithmetic on a boolean")
    if isinstance(v, (int, float)):
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        raise FormulaUnsupported(f"not a number: {v!r}") from None


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _compare(op: str, a: Any, b: Any) -> bool:
    if op in ("=", "=="):
        if _blank(a) and _blank(b):
            return True
        if _blank(a) or _blank(b):
            return False
        if isinstance(a, (int, float)) and not isinstance(a, bool) or isinstance(b, (int, float)) and not isinstance(b, bool):
            return _num(a) == _num(b)
        return a == b
    if op in ("!=", "<>"):
        return not _compare("=", a, b)
    if _blank(a) or _blank(b):
        return False
    x: Any
    y: Any
    if isinstance(a, str) and isinstance(b, str):
        x, y = a, b
    else:
        x, y = _num(a), _num(b)
    return {"<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op]


def evaluate(formula: str, ctx: Context) -> Any:
    """Evaluate ``formula`` against ``ctx``; raise ``FormulaUnsupported`` for anything outside the subset."""
    tree = parse(formula)
    try:
        return _eval(tree, ctx)
    except RecursionError:
        raise FormulaUnsupported("formula nested too deeply") from None
    except (TypeError, ZeroDivisionError, KeyError) as exc:
        raise FormulaUnsupported(f"formula cannot be evaluated: {exc}") from None


def _field_path(node: Tree) -> tuple[str, ...]:
    return tuple(str(t) for t in node.children)


def _eval(node: Any, ctx: Context) -> Any:
    if isinstance(node, Token):
        raise FormulaUnsupported(f"unexpected token {node!r}")
    kind = node.data
    ch = node.children
    if kind == "number":
        text = str(ch[0])
        return float(text) if "." in text else int(text)
    if kind == "string":
        raw = str(ch[0])[1:-1]
        return raw.replace("\\'", "'").replace('\\"', '"').replace("\\\\", "\\")
    if kind == "true":
        return True
    if kind == "false":
        return False
    if kind == "null":
        return None
    if kind == "field":
        return ctx.resolve(_field_path(node))
    if kind == "not_op":
        return not _truth(_eval(ch[0], ctx))
    if kind == "neg":
        v = _num(_eval(ch[0], ctx))
        return None if v is None else -v
    if kind == "or_expr":
        return any(_truth(_eval(c, ctx)) for c in ch if not isinstance(c, Token))
    if kind == "and_expr":
        return all(_truth(_eval(c, ctx)) for c in ch if not isinstance(c, Token))
    if kind == "cmp":
        return _compare(str(ch[1]), _eval(ch[0], ctx), _eval(ch[2], ctx))
    if kind in ("add", "mul"):
        acc = _eval(ch[0], ctx)
        for i in range(1, len(ch), 2):
            op, rhs = str(ch[i]), _eval(ch[i + 1], ctx)
            if op == "&":
                acc = _text(acc) + _text(rhs)
                continue
            a, b = _num(acc), _num(rhs)
            if a is None or b is None:
                acc = None
                continue
            acc = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b}[op]()
        return acc
    if kind == "call":
        name = str(ch[0]).upper()
        args = [c for c in ch[1:] if c is not None]
        return FUNCTIONS[name](args, ctx)
    raise FormulaUnsupported(f"unsupported construct {kind}")


def _truth(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if v is None:
        return False
    raise FormulaUnsupported(f"not a boolean: {v!r}")


def _arity(args: list, n: int, name: str) -> None:
    if len(args) != n:
        raise FormulaUnsupported(f"{name} takes {n} argument(s), got {len(args)}")


def _fn_if(args: list, ctx: Context) -> Any:
    _arity(args, 3, "IF")
    return _eval(args[1], ctx) if _truth(_eval(args[0], ctx)) else _eval(args[2], ctx)


def _fn_case(args: list, ctx: Context) -> Any:
    if len(args) < 4 or len(args) % 2:
        raise FormulaUnsupported("CASE needs an expression, value/result pairs and an else result")
    subject = _eval(args[0], ctx)
    for i in range(1, len(args) - 1, 2):
        if _compare("=", subject, _eval(args[i], ctx)):
            return _eval(args[i + 1], ctx)
    return _eval(args[-1], ctx)


def _field_arg(node: Any, name: str) -> tuple[str, ...]:
    if not isinstance(node, Tree) or node.data != "field":
        raise FormulaUnsupported(f"{name} needs a field")
    return _field_path(node)


def _fn_ischanged(args: list, ctx: Context) -> bool:
    _arity(args, 1, "ISCHANGED")
    path = _field_arg(args[0], "ISCHANGED")
    if ctx.is_new or ctx.resolve_prior is None:
        return False
    return ctx.resolve(path) != ctx.resolve_prior(path)


def _fn_priorvalue(args: list, ctx: Context) -> Any:
    _arity(args, 1, "PRIORVALUE")
    path = _field_arg(args[0], "PRIORVALUE")
    if ctx.is_new or ctx.resolve_prior is None:
        return ctx.resolve(path)
    return ctx.resolve_prior(path)


def _unary(fn: Callable[[Any], Any], name: str) -> Callable[[list, Context], Any]:
    def call(args: list, ctx: Context) -> Any:
        _arity(args, 1, name)
        return fn(_eval(args[0], ctx))
    return call


def _binary(fn: Callable[[Any, Any], Any], name: str) -> Callable[[list, Context], Any]:
    def call(args: list, ctx: Context) -> Any:
        _arity(args, 2, name)
        return fn(_eval(args[0], ctx), _eval(args[1], ctx))
    return call


def _date(args: list, ctx: Context) -> str:
    _arity(args, 3, "DATE")
    y, m, d = (int(_num(_eval(a, ctx)) or 0) for a in args)
    return date(y, m, d).isoformat()


def _value(v: Any) -> float | None:
    return None if _blank(v) else _num(v)


FUNCTIONS: dict[str, Callable[[list, Context], Any]] = {
    "AND": lambda args, ctx: all(_truth(_eval(a, ctx)) for a in args),
    "OR": lambda args, ctx: any(_truth(_eval(a, ctx)) for a in args),
    "NOT": _unary(lambda v: not _truth(v), "NOT"),
    "IF": _fn_if,
    "CASE": _fn_case,
    "ISBLANK": _unary(_blank, "ISBLANK"),
    "ISNULL": _unary(_blank, "ISNULL"),
    "BLANKVALUE": _binary(lambda a, b: b if _blank(a) else a, "BLANKVALUE"),
    "NULLVALUE": _binary(lambda a, b: b if _blank(a) else a, "NULLVALUE"),
    "ISPICKVAL": _binary(lambda a, b: (a or "") == (b or ""), "ISPICKVAL"),
    "INCLUDES": _binary(lambda a, b: b in (a or "").split(";"), "INCLUDES"),
    "TEXT": _unary(_text, "TEXT"),
    "VALUE": _unary(_value, "VALUE"),
    "LEN": _unary(lambda v: len(_text(v)), "LEN"),
    "LOWER": _unary(lambda v: _text(v).lower(), "LOWER"),
    "UPPER": _unary(lambda v: _text(v).upper(), "UPPER"),
    "TRIM": _unary(lambda v: _text(v).strip(), "TRIM"),
    "CONTAINS": _binary(lambda a, b: _text(b) in _text(a), "CONTAINS"),
    "BEGINS": _binary(lambda a, b: _text(a).startswith(_text(b)), "BEGINS"),
    "LEFT": _binary(lambda a, n: _text(a)[: int(_num(n) or 0)], "LEFT"),
    "RIGHT": _binary(lambda a, n: _text(a)[-int(_num(n) or 0):] if int(_num(n) or 0) > 0 else "", "RIGHT"),
    "ABS": _unary(lambda v: None if _num(v) is None else abs(_num(v)), "ABS"),  # type: ignore[arg-type]
    "ISNEW": lambda args, ctx: ctx.is_new,
    "ISCHANGED": _fn_ischanged,
    "PRIORVALUE": _fn_priorvalue,
    "TODAY": lambda args, ctx: today().isoformat(),
    "NOW": lambda args, ctx: now(),
    "DATE": _date,
    "ISNUMBER": _unary(lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) or
                       (isinstance(v, str) and v.replace(".", "", 1).isdigit()), "ISNUMBER"),
}
