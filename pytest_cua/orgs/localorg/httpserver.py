"""A small threaded HTTPS server for the org's WSGI app, with HTTP/1.1 keep-alive.

werkzeug's development server closes every connection after one response, so each request would pay a new TCP
connection and TLS handshake. This server keeps connections open (requests' pooled sessions and browsers reuse
them), reads every request body completely before the app runs (so a keep-alive connection never sees leftover
bytes), refuses bodies over the limit with 413 and then closes, and logs only method, path (never the query
string) and status. TLS handshakes happen in the connection's own thread, and idle connections time out.
"""

from __future__ import annotations

import io
import logging
import socket
import ssl
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import unquote_to_bytes

access_log = logging.getLogger("pytest_cua.orgs.localorg.access")

MAX_BODY = 10 * 1024 * 1024
DRAIN_LIMIT = 64 * 1024 * 1024  # bytes of an oversized body read (and dropped) so the client sees the 413
DRAIN_SECONDS = 10.0


class _BodyTooLarge(Exception):
    pass


class OrgRequestHandler(BaseHTTPRequestHandler):
    """One connection: parse requests, call the WSGI app, write responses with Content-Length."""

    protocol_version = "HTTP/1.1"
    server_version = "pytest-cua-org"
    sys_version = ""
    timeout = 60  # idle or stalled connections
    server: "OrgHTTPServer"

    def setup(self) -> None:
        try:
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        super().setup()

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionError, socket.timeout, ssl.SSLError, OSError):
            self.close_connection = True

    def handle_one_request(self) -> None:
        try:
            self.raw_requestline = self.rfile.readline(65537)
        except (ConnectionError, socket.timeout, ssl.SSLError, OSError):
            self.close_connection = True
            return
        if not self.raw_requestline:
            self.close_connection = True
            return
        if len(self.raw_requestline) > 65536:
            self.requestline = self.request_version = self.command = ""
            self.send_error(414)
            return
        if not self.parse_request():
            return
        try:
            body, oversized = self._read_body()
        except ValueError as exc:
            self.send_error(400, str(exc))
            self.close_connection = True
            return
        self._run_app(body, oversized)
        if oversized:
            self._drain()
            self.close_connection = True

    def _read_body(self) -> tuple[bytes, bool]:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            try:
                return self._read_chunked(), False
            except _BodyTooLarge:
                return b"", True
        raw = self.headers.get("Content-Length")
        if raw is None:
            return b"", False
        try:
            length = int(raw)
        except ValueError:
            raise ValueError("invalid Content-Length") from None
        if length < 0:
            raise ValueError("invalid Content-Length")
        if length > MAX_BODY:
            self._pending = length
            return b"", True
        data = self.rfile.read(length)
        if len(data) != length:
            raise ValueError("body shorter than Content-Length")
        return data, False

    def _read_chunked(self) -> bytes:
        out = io.BytesIO()
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise ValueError("invalid chunk size") from None
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass
                return out.getvalue()
            if out.tell() + size > MAX_BODY:
                raise _BodyTooLarge()
            out.write(self.rfile.read(size))
            self.rfile.readline(1024)

    def _drain(self) -> None:
        remaining = min(getattr(self, "_pending", DRAIN_LIMIT), DRAIN_LIMIT)
        deadline = time.monotonic() + DRAIN_SECONDS
        try:
            while remaining > 0 and time.monotonic() < deadline:
                chunk = self.rfile.read1(min(remaining, 65536)) if hasattr(self.rfile, "read1") else \
                    self.rfile.read(min(remaining, 65536))
                if not chunk:
                    break
                remaining -= len(chunk)
        except (OSError, ValueError):
            pass

    def _environ(self, body: bytes, oversized: bool) -> dict[str, Any]:
        path, _, query = self.path.partition("?")
        if path.startswith(("http://", "https://")):  # absolute-form request target
            path = "/" + path.split("://", 1)[1].partition("/")[2]
        host, port = self.server.server_address[:2]
        environ: dict[str, Any] = {
            "REQUEST_METHOD": self.command, "SCRIPT_NAME": "",
            "PATH_INFO": unquote_to_bytes(path).decode("latin-1"), "QUERY_STRING": query,
            "SERVER_NAME": str(host), "SERVER_PORT": str(port), "SERVER_PROTOCOL": self.request_version,
            "REMOTE_ADDR": self.client_address[0] if self.client_address else "", "REMOTE_PORT": "",
            "wsgi.version": (1, 0), "wsgi.url_scheme": "https", "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": False, "wsgi.run_once": False,
            "wsgi.input_terminated": True,
        }
        content_type = self.headers.get("Content-Type")
        if content_type:
            environ["CONTENT_TYPE"] = content_type
        if oversized:
            environ["CONTENT_LENGTH"] = str(getattr(self, "_pending", MAX_BODY + 1))
        else:
            environ["CONTENT_LENGTH"] = str(len(body))
        for key, value in self.headers.items():
            name = key.upper().replace("-", "_")
            if name in ("CONTENT_TYPE", "CONTENT_LENGTH", "TRANSFER_ENCODING"):
                continue
            name = "HTTP_" + name
            environ[name] = f"{environ[name]},{value}" if name in environ else value
        return environ

    def _run_app(self, body: bytes, oversized: bool) -> None:
        environ = self._environ(body, oversized)
        status_line = "500 Internal Server Error"
        headers: list[tuple[str, str]] = []

        def start_response(status: str, response_headers: list[tuple[str, str]], exc_info: Any = None) -> Callable:
            nonlocal status_line, headers
            status_line, headers = status, list(response_headers)
            return lambda data: None

        try:
            result = self.server.app(environ, start_response)
            try:
                payload = b"".join(result)
            finally:
                if hasattr(result, "close"):
                    result.close()
        except Exception:  # the app catches its own errors; this is the last line of defence
            logging.getLogger("pytest_cua.orgs.localorg").exception("WSGI app failed")
            status_line, headers = "500 Internal Server Error", [("Content-Type", "text/plain")]
            payload = b"Internal Server Error"
        code = int(status_line.split(" ", 1)[0])
        self.send_response_only(code, status_line.split(" ", 1)[1] if " " in status_line else None)
        self.send_header("Date", self.date_time_string())
        sent_length = False
        for key, value in headers:
            low = key.lower()
            if low == "content-length":
                sent_length = True
            if low == "connection" and value.lower() == "close":
                self.close_connection = True
            self.send_header(key, value)
        if not sent_length and code not in (204, 304) and not 100 <= code < 200:
            self.send_header("Content-Length", str(len(payload)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD" and code not in (204, 304):
            self.wfile.write(payload)
        self.wfile.flush()
        access_log.info("%s %s %s", self.command, self.path.split("?", 1)[0], code)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        text = format % args if args else format
        if "?" in text:
            text = text.split("?", 1)[0] + "?<redacted>"
        access_log.debug("%s", text)


class OrgHTTPServer(ThreadingHTTPServer):
    """Threaded HTTPS server calling ``app`` (a WSGI callable) for each request."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], app: Callable, ssl_context: ssl.SSLContext) -> None:
        self.app = app
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, OrgRequestHandler)
        self.socket = ssl_context.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=False)

    def server_bind(self) -> None:
        # like HTTPServer.server_bind without socket.getfqdn(), which may wait for a reverse DNS lookup
        import socketserver

        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def handle_error(self, request: Any, client_address: Any) -> None:
        logging.getLogger("pytest_cua.orgs.localorg").debug("connection error from %s", client_address, exc_info=True)
