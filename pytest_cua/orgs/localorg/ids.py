"""Salesforce record ids: 15-character case-sensitive ids and their 18-character case-safe form."""

from __future__ import annotations

import itertools
import re
import threading

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_SUFFIX = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
_ID_RE = re.compile(r"^[a-zA-Z0-9]{15}(?:[A-Z0-5]{3})?$")
POD = "LO"  # the two characters after the key prefix: marks ids made by this org


class MalformedId(ValueError):
    """A string that is not a 15- or 18-character Salesforce id."""


def checksum(id15: str) -> str:
    """The three-character case-safe suffix of a 15-character id."""
    out = []
    for chunk in range(3):
        bits = 0
        for i, ch in enumerate(id15[chunk * 5 : chunk * 5 + 5]):
            if "A" <= ch <= "Z":
                bits |= 1 << i
        out.append(_SUFFIX[bits])
    return "".join(out)


def is_id(value: object) -> bool:
    """True when ``value`` looks like a 15- or 18-character id with a valid checksum."""
    if not isinstance(value, str) or not _ID_RE.match(value):
        return False
    return len(value) == 15 or checksum(value[:15]) == value[15:]


def to18(value: str) -> str:
    """Normalise a 15- or 18-character id to 18 characters; raise ``MalformedId`` otherwise.

    An 18-character id whose suffix disagrees with its first 15 characters is malformed, except that Salesforce
    accepts the suffix in any letter case, so it is recomputed from the first 15 characters."""
    if not isinstance(value, str) or not re.match(r"^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$", value):
        raise MalformedId(f"malformed id: {value!r}")
    head = value[:15]
    suffix = checksum(head)
    if len(value) == 18 and value[15:].upper() != suffix:
        raise MalformedId(f"malformed id: {value!r} (checksum {value[15:]!r}, expected {suffix!r})")
    return head + suffix


def prefix_of(value: str) -> str:
    """The three-character key prefix of an id."""
    return value[:3]


def _base62(n: int, width: int) -> str:
    digits = []
    while n:
        n, r = divmod(n, 62)
        digits.append(_BASE62[r])
    s = "".join(reversed(digits)) or "0"
    if len(s) > width:
        raise OverflowError("id counter exhausted")
    return s.rjust(width, "0")


class IdFactory:
    """Makes new 18-character ids: ``<key prefix><POD><10 base62 digits><checksum>``; never repeats an id
    within one factory (the counter is not rolled back by snapshots, so ids of rolled-back records are not
    reused)."""

    def __init__(self, start: int = 1) -> None:
        self._counter = itertools.count(start)
        self._lock = threading.Lock()

    def new(self, key_prefix: str) -> str:
        """A fresh id for an object with ``key_prefix``."""
        if len(key_prefix) != 3:
            raise ValueError(f"key prefix must have 3 characters: {key_prefix!r}")
        with self._lock:
            n = next(self._counter)
        id15 = key_prefix + POD + _base62(n, 10)
        return id15 + checksum(id15)
