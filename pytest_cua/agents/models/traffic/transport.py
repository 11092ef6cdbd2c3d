"""The HTTP side of the proxy: a request as received (``Incoming``), an answer (``Answer``, ``error_answer``), the
loopback server that hands each request to the proxy (``ProxyServer``), and which headers are forwarded upstream
and passed back."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO, Any, Callable
from urllib.parse import urlsplit

_HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te",
    "trailer", "transfer-encoding", "upgrade",
})
#: Request headers the proxy never forwards: its own, hop-by-hop, and those httpx sets itself.
NOT_FORWARDED = _HOP_BY_HOP | {"host", "content-length", "accept-encoding"}
#: Response headers passed back to the SDK and stored (bodies are decoded: no content-encoding / -length).
_RESPONSE_HEADERS = frozenset({
    "content-type", "retry-after", "retry-after-ms", "x-should-retry", "request-id", "x-request-id",
    "openai-processing-ms", "openai-version",
})
_RESPONSE_HEADER_PREFIXES = ("x-ratelimit-", "anthropic-ratelimit-")


@dataclass(frozen=True)
class Incoming:
    method: str
    target: str  # path and query as received
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        for key, value in self.headers:
            if key.lower() == name:
                return value
        return None

    @property
    def header_map(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers}


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def error_answer(status: int, error_type: str, message: str, code: str, headers: dict[str, str]) -> Answer:
    """An error in Anthropic's shape, which OpenAI's SDK also reads (``body["error"]["message"]``)."""
    body = {"type": "error", "error": {"type": error_type, "message": message, "code": code}}
    return Answer(status, {"content-type": "application/json", **headers}, json.dumps(body).encode("utf-8"))


def _read_chunked(rfile: IO[bytes] | io.BufferedIOBase) -> bytes:
    parts: list[bytes] = []
    while True:
        size = int(rfile.readline(65537).split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            while rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                pass
            return b"".join(parts)
        parts.append(rfile.read(size))
        rfile.readline(65537)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ProxyServer

    def _serve(self) -> None:
        if (self.headers.get("transfer-encoding") or "").lower() == "chunked":
            body = _read_chunked(self.rfile)
        else:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
        incoming = Incoming(self.command, self.path, list(self.headers.items()), body)
        answer = self.server.answer(incoming)
        try:
            self.send_response(answer.status)
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's signature
        """Quiet: requests are counted in ``stats``, not logged."""


class ProxyServer(ThreadingHTTPServer):
    """A threading HTTP server on a free loopback port that answers every request with ``answer``."""

    daemon_threads = True

    def __init__(self, answer: Callable[[Incoming], Answer]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answer = answer


def split_upstream(upstream: str) -> tuple[str, str]:
    """``(origin, path prefix)`` of an http(s) URL: ``https://api.openai.com/v1`` -> (``https://api...``, ``/v1``)."""
    parts = urlsplit(upstream)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"pytest-cua model proxy: upstream must be an http(s) URL, got {upstream!r}")
    return f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")


def is_loopback(origin: str) -> bool:
    host = urlsplit(origin).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


def kept_response_headers(headers: Any) -> dict[str, str]:
    kept: dict[str, str] = {}
    for name, value in headers.items():
        lower = name.lower()
        if lower in _RESPONSE_HEADERS or lower.startswith(_RESPONSE_HEADER_PREFIXES):
            kept[lower] = value
    return kept
