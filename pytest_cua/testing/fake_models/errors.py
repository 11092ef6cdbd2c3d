"""How the fake server refuses a request: ``Rejected`` (the problems behind a 4xx), the vendors' error bodies
and the API-key check."""

from __future__ import annotations


class Rejected(Exception):
    """A request the server answers with an error: its message joins the problems (violations) behind it."""

    def __init__(self, status: int, *problems: str, param: str | None = None, code: str | None = None):
        super().__init__("; ".join(problems))
        self.status = status
        self.problems = list(problems)
        self.message = "; ".join(problems)
        self.param = param
        self.code = code


_OPENAI_ERRORS = {400: ("invalid_request_error", None), 401: ("invalid_request_error", "invalid_api_key"),
                  403: ("invalid_request_error", None), 404: ("invalid_request_error", None),
                  429: ("requests", "rate_limit_exceeded")}
_ANTHROPIC_ERRORS = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                     404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 529: "overloaded_error"}


def error_body(vendor: str, status: int, message: str, *, param: str | None = None,
               code: str | None = None) -> dict:
    """An error body in the vendor's shape."""
    if vendor == "anthropic":
        kind = _ANTHROPIC_ERRORS.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind, default_code = _OPENAI_ERRORS.get(status, ("server_error" if status >= 500 else "invalid_request_error",
                                                     None))
    return {"error": {"message": message, "type": kind, "param": param, "code": code or default_code}}


def auth_problem(vendor: str, headers: dict[str, str], api_key: str) -> str | None:
    """Why the request's credentials are refused, or None (Anthropic takes ``x-api-key`` or Bearer auth)."""
    bearer = headers.get("authorization")
    if vendor == "anthropic":
        given = headers.get("x-api-key") or (bearer.removeprefix("Bearer ") if bearer else None)
        if given is None:
            return "x-api-key header is required"
        return None if given == api_key else "invalid x-api-key"
    if bearer is None:
        return "You didn't provide an API key. You need to provide your API key in an Authorization header " \
               "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
    return None if bearer == f"Bearer {api_key}" else "Incorrect API key provided."
