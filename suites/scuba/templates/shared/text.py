"""Text and ground-truth values compared and read as SCUBA's scorers do: white space and case ignored
(``same_text``), rich text as its text, numbers however written, and the lists and triples of a ground truth."""

from __future__ import annotations

import html
import re
from typing import Any


def norm(value: Any) -> str:
    """Trimmed, inner white space collapsed, case folded."""
    return " ".join(str(value if value is not None else "").split()).casefold()


def same_text(a: Any, b: Any) -> bool:
    """Equal after trimming and collapsing white space, ignoring case."""
    return norm(a) == norm(b)


def html_text(value: Any) -> str:
    """The text of a rich-text value as SCUBA compares it: tags dropped, trimmed, entities decoded."""
    return html.unescape(re.sub(r"<[^>]*>", "", str(value if value is not None else "")).strip())


def digits(text: Any) -> str:
    """Only the digits (of a phone number)."""
    return re.sub(r"\D", "", str(text or ""))


def same_number(a: Any, b: Any, tol: float = 1e-9) -> bool:
    """Numbers equal (``"10,000"`` and ``10000.0`` are the same); False when either is not a number."""
    try:
        x = float(str(a).replace(",", "").replace("$", "")) if a is not None else None
        y = float(str(b).replace(",", "").replace("$", "")) if b is not None else None
    except ValueError:
        return False
    return x is not None and y is not None and abs(x - y) <= tol


def as_list(value: Any) -> list[str]:
    """A ground-truth value that may be one string or a list of them, as a list of strings."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def triples(value: Any, name: str, what: str = "field, operation, value", *,
            empty: bool = False) -> list[tuple[Any, Any, Any]]:
    """A ground truth's ``[[a, b, c], ...]`` (SCUBA's filters and criteria) as tuples of the values as given; a
    value of another shape (or an empty list, unless ``empty``) is a ``ValueError`` naming ``name``."""
    if not isinstance(value, list) or not (value or empty) or not all(
            isinstance(t, (list, tuple)) and len(t) == 3 for t in value):
        raise ValueError(f"{name} must be a {'' if empty else 'non-empty '}list of [{what}], got {value!r}")
    return [(t[0], t[1], t[2]) for t in value]


def names(value: Any) -> list[str]:
    """A list of names from a list or from ``"A, B and C"``."""
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if str(v).strip()]
    parts = re.split(r",|\band\b|;", str(value or ""))
    return [p.strip() for p in parts if p.strip()]
