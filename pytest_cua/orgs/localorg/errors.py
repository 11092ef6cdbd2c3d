"""The one error type of the org: a Salesforce error code, message, fields and HTTP status."""

from __future__ import annotations

from typing import Any, Sequence


class OrgError(Exception):
    """An error as Salesforce reports it: ``[{"message", "errorCode", "fields"}]`` with an HTTP status.

    Raised by the store, the SOQL engine and the API alike; the API turns it into the response body."""

    def __init__(self, code: str, message: str, fields: Sequence[str] = (), status: int = 400) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.fields = list(fields)
        self.status = status

    def body(self) -> list[dict[str, Any]]:
        """The JSON body Salesforce sends for this error."""
        return [{"message": self.message, "errorCode": self.code, "fields": self.fields}]


def invalid_type(name: str) -> OrgError:
    """The error for an unknown object name."""
    return OrgError("INVALID_TYPE", f"sObject type '{name}' is not supported. If you are attempting to use a custom "
                    "object, be sure to append the '__c' after the entity name. Please reference your WSDL or the "
                    "describe call for the appropriate names.")


def not_found(message: str = "The requested resource does not exist") -> OrgError:
    """404 NOT_FOUND."""
    return OrgError("NOT_FOUND", message, status=404)
