"""``FakeModelServer``: the HTTP server on loopback that routes each request to its vendor protocol, rejects what
a real API rejects (``strict``), asks the policy for the reply, injects faults and delays, and records every
request and violation."""

from __future__ import annotations

import json
import math
import select
import socket
import threading
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast
from urllib.parse import urlsplit

from pytest_cua.testing.fake_models.anthropic_messages import MessagesProtocol
from pytest_cua.testing.fake_models.conversation import Conversation, HistoryMessage
from pytest_cua.testing.fake_models.errors import Rejected, auth_problem, error_body
from pytest_cua.testing.fake_models.openai_chat import ChatProtocol
from pytest_cua.testing.fake_models.openai_responses import ResponsesProtocol
from pytest_cua.testing.fake_models.policy import FakeRequest, Policy, default_policy
from pytest_cua.testing.fake_models.protocol import FakeIds, VendorProtocol
from pytest_cua.testing.fake_models.usage import PromptCache


@dataclass
class _Answer:
    """An HTTP answer."""

    status: int
    body: dict
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class _Fault:
    """An injected failure for the next ``times`` requests."""

    times: int
    status: int
    retry_after: float | None = None
    body: dict | None = None


@dataclass
class _Delay:
    """An injected late answer for the next ``times`` requests."""

    times: int
    seconds: float


class FakeModelServer:
    """Fake OpenAI (Responses, chat completions) and Anthropic (Messages) APIs on ``127.0.0.1``."""

    def __init__(self, policy: Policy | None = None, *, api_key: str = "test-key", strict: bool = True):
        self.policy: Policy = policy or default_policy
        self.api_key = api_key
        self.strict = strict
        self.requests: list[FakeRequest] = []
        self.responses: list[tuple[str, dict]] = []  # (protocol name, body) of every reply rendered
        self.violations: list[str] = []
        self._cache = PromptCache()
        self._ids = FakeIds()
        self._protocols: dict[str, VendorProtocol] = {
            "/v1/responses": ResponsesProtocol(self._ids, self._cache),
            "/v1/chat/completions": ChatProtocol(self._ids, self._cache),
            "/v1/messages": MessagesProtocol(self._ids, self._cache),
        }
        self._faults: list[_Fault] = []
        self._delays: list[_Delay] = []
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle

    def start(self) -> FakeModelServer:
        """Listen on a free loopback port and serve in a background thread."""
        self._stopped.clear()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                        name="fake-model-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close every open connection."""
        if self._httpd is None:
            return
        self._stopped.set()
        self._httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()
        self._httpd = self._thread = None

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        if self._httpd is None:
            raise RuntimeError("FakeModelServer is not started")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def openai_base_url(self) -> str:
        """The ``base_url`` for ``openai.OpenAI``."""
        return self.url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The ``base_url`` for ``anthropic.Anthropic``."""
        return self.url

    # ---- fault injection

    def fail_next(self, status: int, *, times: int = 1, retry_after: float | None = None,
                  body: dict | None = None) -> None:
        """Answer the next ``times`` requests with ``status`` (in the vendor's error shape unless ``body``)."""
        with self._lock:
            self._faults.append(_Fault(times, status, retry_after, body))

    def delay_next(self, seconds: float, *, times: int = 1) -> None:
        """Answer the next ``times`` requests ``seconds`` late (a client gone by then gets no answer)."""
        with self._lock:
            self._delays.append(_Delay(times, seconds))

    def _take(self, queue: list[Any]) -> Any:
        """Use the first injected fault or delay of ``queue`` once (None when there is none)."""
        with self._lock:
            if not queue:
                return None
            entry = queue[0]
            entry.times -= 1
            if entry.times <= 0:
                queue.pop(0)
            return entry

    # ---- helpers

    def _violation(self, message: str) -> None:
        with self._lock:
            self.violations.append(message)

    # ---- request handling

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> _Answer | None:
        """The answer to one HTTP request (None when the client hung up before a late answer)."""
        headers = {name.lower(): value for name, value in handler.headers.items()}
        raw = handler.rfile.read(int(headers.get("content-length") or 0))
        path = urlsplit(handler.path).path
        protocol = self._protocols.get(path) if method == "POST" else None
        vendor = protocol.vendor if protocol else ("anthropic" if "x-api-key" in headers
                                                   or "anthropic-version" in headers else "openai")
        body, conv, rejected = self._parse(protocol, raw, headers)
        request = self._fake_request(protocol, body, headers, conv)
        with self._lock:
            self.requests.append(request)
        delay = self._take(self._delays)
        if delay and (self._stopped.wait(delay.seconds) or _client_gone(handler.connection)):
            return None
        fault = self._take(self._faults)
        if fault is not None:
            return _fault_answer(vendor, fault)
        if protocol is None:
            rejected = Rejected(404, f"Invalid URL ({method} {path})")
        elif self.strict and rejected is None:
            rejected = self._strict_problems(protocol, body, headers, conv)
        if rejected is not None:
            return self._reject(vendor, rejected)
        return self._reply(cast(VendorProtocol, protocol), request, conv)

    def _parse(self, protocol: VendorProtocol | None, raw: bytes,
               headers: dict[str, str]) -> tuple[dict, Conversation, Rejected | None]:
        """The JSON body and its conversation, or why they cannot be read."""
        try:
            body = json.loads(raw or b"{}")
        except ValueError as exc:
            return {}, Conversation(), Rejected(400, f"We could not parse the JSON body of your request: {exc}")
        if not isinstance(body, dict):
            return {}, Conversation(), Rejected(400, "The request body must be a JSON object")
        if protocol is None:
            return body, Conversation(), None
        if not isinstance(body.get("model"), str):
            return body, Conversation(), Rejected(400, "model: Field required", param="model")
        try:
            return body, protocol.parse(body, headers), None
        except Rejected as exc:
            return body, Conversation(), exc
        except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
            message = f"malformed {protocol.name} request: {type(exc).__name__}: {exc}"
            return body, Conversation(), Rejected(400, message)

    def _strict_problems(self, protocol: VendorProtocol, body: dict, headers: dict[str, str],
                         conv: Conversation) -> Rejected | None:
        """The auth failure or the protocol problems of a request, as one rejection."""
        auth = auth_problem(protocol.vendor, headers, self.api_key)
        if auth is not None:
            return Rejected(401, auth)
        try:
            protocol.check(body, headers, conv)
        except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
            conv.problems.append(f"malformed {protocol.name} request: {type(exc).__name__}: {exc}")
        return Rejected(400, *conv.problems) if conv.problems else None

    def _reject(self, vendor: str, rejected: Rejected) -> _Answer:
        """Record a rejection as a violation and answer it in the vendor's error shape."""
        prefix = "auth: " if rejected.status == 401 else ""
        with self._lock:
            self.violations.extend(prefix + problem for problem in rejected.problems)
        body = error_body(vendor, rejected.status, rejected.message, param=rejected.param, code=rejected.code)
        return _Answer(rejected.status, body, {"x-should-retry": "false"})

    def _reply(self, protocol: VendorProtocol, request: FakeRequest, conv: Conversation) -> _Answer:
        """The policy's reply in the protocol's shape (a policy error is answered 500)."""
        try:
            body = protocol.render(request, conv, self.policy(request))
            with self._lock:
                self.responses.append((protocol.name, body))
            return _Answer(200, body)
        except Exception as exc:  # the policy is user code: report whatever it raised
            line = traceback.format_exception_only(type(exc), exc)[-1].strip()
            self._violation(f"policy error: {line}")
            return _Answer(500, error_body(protocol.vendor, 500, line), {"x-should-retry": "false"})

    @staticmethod
    def _fake_request(protocol: VendorProtocol | None, body: dict, headers: dict[str, str],
                      conv: Conversation) -> FakeRequest:
        """What the policy (and ``requests``) sees of a request."""
        last = max((i for i, m in enumerate(conv.messages) if m.role == "assistant"), default=-1)
        newest = [m for m in conv.messages[last + 1:] if m.role != "system"]
        images = [image.data for image in conv.images]
        return FakeRequest(
            protocol=protocol.name if protocol else "", model=str(body.get("model", "")), body=body,
            headers=headers, text="\n".join(t for m in conv.messages for t in _message_texts(m)),
            last_text="\n".join(t for m in newest for t in _message_texts(m)),
            images=images, last_image=images[-1] if images else None, tool_names=conv.tool_names,
            turn=sum(m.role == "assistant" for m in conv.messages),
        )


def _message_texts(message: HistoryMessage) -> list[str]:
    """A message's texts, its tool outputs' first (they come first in the turn)."""
    return [text for result in message.results for text in result.texts] + message.texts


def _fault_answer(vendor: str, fault: _Fault) -> _Answer:
    """The answer of an injected fault, with Retry-After when asked for."""
    message = f"fake {fault.status} injected by FakeModelServer.fail_next"
    headers = {}
    if fault.retry_after is not None:
        headers = {"retry-after": str(math.ceil(fault.retry_after)),
                   "retry-after-ms": str(int(fault.retry_after * 1000))}
    return _Answer(fault.status, fault.body or error_body(vendor, fault.status, message), headers)


def _client_gone(connection: socket.socket) -> bool:
    """Whether the client closed the connection (readable with nothing to read)."""
    readable, _, _ = select.select([connection], [], [], 0)
    if not readable:
        return False
    try:
        return connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def _make_handler(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to ``server``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            with server._lock:
                server._connections.add(self.connection)

        def finish(self) -> None:
            with server._lock:
                server._connections.discard(self.connection)
            try:
                super().finish()
            except OSError:
                pass

        def do_POST(self) -> None:
            self._serve("POST")

        def do_GET(self) -> None:
            self._serve("GET")

        def _serve(self, method: str) -> None:
            answer = server._handle(self, method)
            if answer is None:
                self.close_connection = True
                return
            payload = json.dumps(answer.body).encode()
            request_id = server._ids.new("req")
            try:
                self.send_response(answer.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.send_header("x-request-id", request_id)
                self.send_header("request-id", request_id)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

    return Handler
