"""Field values: coercion of incoming JSON values to stored values, and date/time helpers.

Stored forms: text types as ``str``; booleans as ``bool``; ``int`` as int; double, currency and percent as
float; dates as ``"YYYY-MM-DD"``; datetimes as ``"YYYY-MM-DDTHH:MM:SS.000+0000"`` in UTC (so they sort as
strings); references as 18-character ids; ``json`` fields as any JSON value.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime, timezone
from typing import Any

from pytest_cua.orgs.localorg import ids
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.schema import FieldSchema

_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_DT_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$")


def format_datetime(dt: datetime) -> str:
    """A datetime in Salesforce's JSON form, in UTC: ``2025-01-31T09:30:00.000+0000``."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    dt = dt.astimezone(timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}+0000"


def now() -> str:
    """The current time in the stored datetime form."""
    return format_datetime(datetime.now(timezone.utc))


def today() -> date:
    """The org's today: the UTC day (the org's time zone), for SOQL's date literals, formulas' TODAY() and reports'
    relative ranges and ages alike."""
    return datetime.now(timezone.utc).date()


def parse_datetime(text: str) -> datetime:
    """Parse an ISO 8601 datetime (``Z``, ``+01:00`` or ``+0100`` offsets, optional fraction); naive means UTC."""
    m = _DT_RE.match(text.strip())
    if not m:
        raise ValueError(f"not a datetime: {text!r}")
    y, mo, d, h, mi, s, frac, tz = m.groups()
    micro = int((frac or "0").ljust(6, "0")[:6])
    dt = datetime(int(y), int(mo), int(d), int(h), int(mi), int(s or 0), micro, tzinfo=timezone.utc)
    if tz and tz != "Z":
        sign = 1 if tz[0] == "+" else -1
        digits = tz[1:].replace(":", "")
        offset = sign * (int(digits[:2]) * 60 + int(digits[2:]))
        from datetime import timedelta

        dt = dt - timedelta(minutes=offset)
    return dt


def parse_date(text: str) -> date:
    """Parse ``YYYY-MM-DD``."""
    if not re.match(r"^\d{4}-\d{2}-\d{2}$", text):
        raise ValueError(f"not a date: {text!r}")
    return date.fromisoformat(text)


def shown_date(value: str) -> str:
    """A stored date as Lightning shows it to an en-US user: ``12/5/2026`` (text that is not a date: as it is)."""
    try:
        day = datetime.strptime(value[:10], "%Y-%m-%d")
    except ValueError:
        return value
    return f"{day.month}/{day.day}/{day.year}"


def shown_datetime(value: str) -> str:
    """A stored date and time as Lightning shows it to an en-US user: ``12/5/2026, 3:07 PM`` (the stored
    clock time; text that is not a date and time: as it is)."""
    try:
        moment = datetime.strptime(value[:16], "%Y-%m-%dT%H:%M")
    except ValueError:
        return shown_date(value)
    hour = moment.hour % 12 or 12
    return f"{moment.month}/{moment.day}/{moment.year}, {hour}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'}"


def _bad(f: FieldSchema, value: Any) -> OrgError:
    return OrgError("INVALID_TYPE_ON_FIELD_IN_RECORD", f"{f.label}: value not of required type: {value}", [f.name])


def coerce(f: FieldSchema, value: Any) -> Any:
    """The stored form of ``value`` for field ``f``; raise ``OrgError`` naming the field when it does not fit.

    References are only normalised to 18 characters here; their targets are checked by the store."""
    if value is None or (value == "" and f.type not in ("boolean", "json")):
        return None
    t = f.type
    if t == "json":
        return value
    if t == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise _bad(f, value)
    if t in ("int", "double", "currency", "percent"):
        if isinstance(value, bool):
            raise _bad(f, value)
        if isinstance(value, str):
            try:
                value = float(value) if t != "int" else int(value)
            except ValueError:
                raise _bad(f, value) from None
        if not isinstance(value, (int, float)) or (isinstance(value, float) and not math.isfinite(value)):
            raise _bad(f, value)
        if t == "int":
            if isinstance(value, float) and not value.is_integer():
                raise _bad(f, value)
            return int(value)
        return float(value)
    if not isinstance(value, str):
        if t in ("string", "textarea", "phone", "url", "picklist") and isinstance(value, (int, float)) \
                and not isinstance(value, bool):
            value = str(value)
        else:
            raise _bad(f, value)
    if t == "date":
        try:
            if "T" in value:
                return parse_datetime(value).date().isoformat()
            return parse_date(value).isoformat()
        except ValueError:
            raise _bad(f, value) from None
    if t == "datetime":
        try:
            if re.match(r"^\d{4}-\d{2}-\d{2}$", value):  # a date alone means midnight UTC
                return format_datetime(parse_datetime(value + "T00:00:00Z"))
            return format_datetime(parse_datetime(value))
        except ValueError:
            raise _bad(f, value) from None
    if t in ("reference", "id"):
        try:
            return ids.to18(value)
        except ids.MalformedId:
            raise OrgError("MALFORMED_ID", f"{f.label}: id value of incorrect type: {value}", [f.name]) from None
    if f.length and len(value) > f.length:
        raise OrgError("STRING_TOO_LONG", f"{f.label}: data value too large: {value[:40]}... (max length={f.length})",
                       [f.name])
    if t == "email" and not _EMAIL_RE.match(value):
        raise OrgError("INVALID_EMAIL_ADDRESS", f"{f.label}: invalid email address: {value}", [f.name])
    if t == "picklist" and f.restricted and value not in f.values:
        raise OrgError("INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST",
                       f"{f.label}: bad value for restricted picklist field: {value}", [f.name])
    if t == "multipicklist":
        parts = [p.strip() for p in value.split(";") if p.strip()]
        if f.restricted:
            for p in parts:
                if p not in f.values:
                    raise OrgError("INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST",
                                   f"{f.label}: bad value for restricted picklist field: {p}", [f.name])
        return ";".join(parts) or None
    return value
