"""SCUBA's OpenCUA-7B agent asks a Ray Serve service of SCUBA's (``POST {ray_base_url}/call_llm`` with
``{"messages", "max_new_tokens", "top_p", "temperature"}``, answered ``{"response": text, "usage": {...}}``), which
runs the model with ``transformers``. ``RayShim`` is that service on loopback for a model served with an
OpenAI-compatible API instead (vLLM serves OpenCUA-7B so): each call becomes a chat completion of the served
model, sent to the bridge's proxy (so counted, recorded and replayed like every model call), and its text and
usage are answered in the Ray service's shape. A failed completion is answered as that service answers a failed
generation (``{"response": "", "error": {"message": ...}}``); the agent then retries as it does.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY = 64 * 1024 * 1024


class RayShim:
    """A loopback ``/call_llm`` service over an OpenAI-compatible chat endpoint (``chat_url``: the proxy's
    ``.../chat/completions``), for the served model ``model``."""

    def __init__(self, chat_url: str, model: str, api_key: str, timeout_s: float = 500.0) -> None:
        self.chat_url = chat_url
        self.model = model
        self.api_key = api_key
        self.timeout_s = timeout_s
        self._server: ThreadingHTTPServer | None = None

    def start(self) -> str:
        """Serve on a free loopback port; the base URL to give the agent as ``ray_base_url``."""
        shim = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the standard library's name
                length = int(self.headers.get("content-length") or 0)
                if self.path.rstrip("/") != "/call_llm" or length > MAX_BODY:
                    self._send(404, {"detail": f"no route {self.path}"})
                    return
                try:
                    payload = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self._send(400, {"detail": "the body is not JSON"})
                    return
                self._send(200, shim.call(payload))

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="cua-scuba-ray", daemon=True).start()
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def call(self, payload: dict[str, Any]) -> dict[str, Any]:
        """One ``/call_llm`` as a chat completion: ``{"response", "usage"}``, or an empty response with the error."""
        import httpx

        body = {"model": self.model, "messages": payload.get("messages") or [],
                "max_tokens": payload.get("max_new_tokens"), "top_p": payload.get("top_p"),
                "temperature": payload.get("temperature")}
        body = {k: v for k, v in body.items() if v is not None}
        try:
            answer = httpx.post(self.chat_url, json=body, timeout=self.timeout_s,
                                headers={"authorization": f"Bearer {self.api_key}"})
            data = answer.json()
        except (httpx.HTTPError, ValueError) as exc:
            return {"response": "", "error": {"message": f"{type(exc).__name__}: {exc}", "trace": ""}}
        if answer.status_code != 200:
            message = (data.get("error") or {}).get("message") if isinstance(data, dict) else None
            return {"response": "", "error": {"message": f"HTTP {answer.status_code}: {message or answer.text[:300]}",
                                              "trace": ""}}
        try:
            text = data["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            return {"response": "", "error": {"message": "the completion has no message content", "trace": ""}}
        return {"response": text, "usage": data.get("usage") or {}}
