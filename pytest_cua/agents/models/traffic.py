"""Record and replay of model traffic through a loopback HTTP proxy.

A model agent points its SDK's ``base_url`` at a :class:`TrafficProxy` on ``127.0.0.1``. The proxy works with
every SDK unchanged (OpenAI's moved from httpx to httpx2; patching a transport breaks on such a move):

* ``record``: each request is forwarded to ``upstream`` and each exchange is written to ``directory`` as one
  JSON file. Responses with status 429 or >= 500 are passed back to the SDK (which retries as it would against
  the vendor) but are **not recorded**: a replay must not replay an outage. An unreachable upstream is answered
  with 502 and is not recorded either.
* ``replay``: every file of ``directory`` is loaded at :meth:`TrafficProxy.start`; requests are answered from
  them and nothing is ever forwarded (a replay proxy has no HTTP client at all). A request with no recording is
  a *miss*: HTTP 404 with ``x-cua-replay-miss: 1`` and an error body both SDKs turn into ``NotFoundError``.

Matching in replay, in this order:

1. by :func:`request_key`: the recordings of one key are answered in recorded order, each at most once;
   a key used more times than it was recorded falls through to 2;
2. by position: the n-th request of the task named by the ``x-cua-task`` header (n counted per task by this
   proxy, misses included) gets the task's n-th recorded exchange, if that recording has the same method and
   path and was not answered yet (typically the screenshot changed by a pixel). The answer carries
   ``x-cua-replay-match: position`` (``key`` for a key match);
3. otherwise a miss.

Episodes: the agent names each episode (``x-cua-episode``, new for every task it starts) and its trial
(``x-cua-trial``, under ``--cua-trials``). "Answered" and the position count are per episode, so every trial
and every retry of a task replays the task's traffic from its beginning; among the recordings that match, those
recorded in the same trial come first (recorded with ``--cua-trials 3``, trial 2 replays trial 2's answers;
recorded once, every trial replays that one).

The agent sends ``x-cua-task`` and ``x-cua-step`` on each request, and ``x-cua-origin`` with the address of the
environment (the embedded org listens on a new port each run): that address is written as ``{cua-origin}`` in
keys and in stored requests and responses, and a replay answers with the current one, so a recorded
``goto("https://127.0.0.1:41235/lightning/...")`` replays against today's org. Every ``x-cua-*`` header is
stripped before forwarding. Auth headers (``authorization``, ``x-api-key``, ...) are forwarded in record mode but never stored
and never part of a key; their values are also scrubbed from every file written, should they appear elsewhere.

A recording file (``format`` 1)::

    {"format": 1, "key": "<sha256>", "task": "T" | null, "step": "3" | null,
     "seq": 1,            # the n-th recorded exchange with this key in the recording proxy (from 1)
     "task_seq": 2,       # the n-th recorded exchange of this task in the recording proxy (from 1), or null
     "request": {"method": "POST", "base_path": "/v1", "path": "/chat/completions",
                 "headers": {"anthropic-version": ...}, "body": <normalised JSON, images as {"$image": sha}>},
     "response": {"status": 200, "headers": {"content-type": ...}, "body": <JSON> (or "body_text": "...")},
     "recorded_at": "2026-01-01T00:00:00.000000+00:00"}

Images are stored once, as ``directory/images/<sha256>.<ext>``. Files get unique names and are written through a
temporary file and a rename, so several processes (xdist workers) can record into one directory at once.

Every string of a stored request or response passes through ``redact`` when given (pass
``pytest_cua.redaction.redact``): ``sid=...``, passwords and tokens must never reach disk. Keys are computed on
the redacted form too, so a hash on disk cannot be used to guess a short secret, and a per-run secret does not
change the key; give the same ``redact`` to the recording and the replaying proxy. Redaction also applies to
recorded responses, so a replay answers with the redacted text.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import json
import os
import re
import threading
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any, Callable, Mapping, Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit

__all__ = [
    "FORMAT",
    "KEY_HEADERS",
    "MATCH_HEADER",
    "MISS_HEADER",
    "MODES",
    "STEP_HEADER",
    "EPISODE_HEADER",
    "TRIAL_HEADER",
    "TASK_HEADER",
    "ORIGIN_HEADER",
    "VOLATILE_FIELDS",
    "RecordingError",
    "ReplayMiss",
    "TrafficProxy",
    "as_replay_miss",
    "request_key",
]

MODES = ("record", "replay")
FORMAT = 1

MISS_HEADER = "x-cua-replay-miss"
MATCH_HEADER = "x-cua-replay-match"
TASK_HEADER = "x-cua-task"
ORIGIN_HEADER = "x-cua-origin"
ORIGIN_PLACEHOLDER = "{cua-origin}"
STEP_HEADER = "x-cua-step"
EPISODE_HEADER = "x-cua-episode"
TRIAL_HEADER = "x-cua-trial"
_CUA_PREFIX = "x-cua-"

#: Request headers that change what the model does: part of the key and stored. Beta lists are order-free.
KEY_HEADERS = ("anthropic-version", "anthropic-beta", "openai-beta")
_LIST_HEADERS = frozenset({"anthropic-beta", "openai-beta"})

#: Top-level body fields that do not change the answer (tracking, storage, streaming and cache-routing hints);
#: dropped from the key and from the stored request. Everything else, sampling parameters included, stays.
VOLATILE_FIELDS = ("metadata", "user", "store", "stream_options", "safety_identifier", "prompt_cache_key")

#: Query parameters that carry credentials (Gemini-style ``?key=``): dropped from keys and files.
_SECRET_QUERY = frozenset({"key", "api_key", "api-key", "apikey", "access_token", "token"})
#: Request headers whose values are credentials: forwarded, never stored, scrubbed from written files.
_AUTH_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization", "x-goog-api-key"})
_HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te",
    "trailer", "transfer-encoding", "upgrade",
})
#: Request headers the proxy never forwards: its own, hop-by-hop, and those httpx sets itself.
_NOT_FORWARDED = _HOP_BY_HOP | {"host", "content-length", "accept-encoding"}
#: Response headers passed back to the SDK and stored (bodies are decoded: no content-encoding / -length).
_RESPONSE_HEADERS = frozenset({
    "content-type", "retry-after", "retry-after-ms", "x-should-retry", "request-id", "x-request-id",
    "openai-processing-ms", "openai-version",
})
_RESPONSE_HEADER_PREFIXES = ("x-ratelimit-", "anthropic-ratelimit-")

_DATA_URL = re.compile(r"data:image/([A-Za-z0-9.+-]+);base64,([A-Za-z0-9+/]+={0,2})")
_EXTENSIONS = {"jpeg": "jpg", "svg+xml": "svg"}
_MIN_SCRUB_LENGTH = 8
_POLL_SECONDS = 0.05  # how soon stop() returns
_SCRUBBED = "[REDACTED]"

Redact = Callable[[str], str]


class RecordingError(ValueError):
    """A recording directory or file that cannot be used; the message names the file."""


class ReplayMiss(Exception):
    """A request with no recording. The proxy answers a miss with HTTP 404 and ``MISS_HEADER``; callers turn
    the SDK's error into this with :func:`as_replay_miss`, to report a miss rather than a model failure."""


def as_replay_miss(error: BaseException) -> ReplayMiss | None:
    """The :class:`ReplayMiss` behind an SDK error raised on a proxy miss, else ``None``."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if response is None or headers is None or headers.get(MISS_HEADER) != "1":
        return None
    message = str(error)
    try:
        message = json.loads(response.text)["error"]["message"]
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    return ReplayMiss(message)


# --------------------------------------------------------------------------------------------- normalisation


@dataclass
class _Normalised:
    """A request reduced to what decides the model's answer, plus the images it carried."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    images: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # sha256 -> (extension, bytes)

    def canonical(self) -> bytes:
        doc = {"method": self.method, "path": self.path, "headers": self.headers, "body": self.body}
        return _canonical_json(doc).encode("utf-8")

    @property
    def key(self) -> str:
        return hashlib.sha256(self.canonical()).hexdigest()


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _identity(text: str) -> str:
    return text


def _image_ref(subtype: str, b64: str, images: dict[str, tuple[str, bytes]]) -> dict[str, str]:
    """``{"$image": sha256 of the decoded bytes}``, remembering the bytes (undecodable data: hash of the text)."""
    try:
        data = base64.b64decode(b64, validate=False)
    except (binascii.Error, ValueError):
        return {"$image": hashlib.sha256(b64.encode("utf-8")).hexdigest()}
    digest = hashlib.sha256(data).hexdigest()
    sub = subtype.lower()
    images.setdefault(digest, (_EXTENSIONS.get(sub, re.sub(r"[^a-z0-9]", "", sub) or "bin"), data))
    return {"$image": digest}


def _normalise_string(text: str, images: dict[str, tuple[str, bytes]], redact: Redact) -> Any:
    """A whole data URL becomes an image reference; one inside text becomes ``[$image:sha]``; then redaction."""
    whole = _DATA_URL.fullmatch(text)
    if whole:
        return _image_ref(whole.group(1), whole.group(2), images)
    if "data:image/" in text:
        text = _DATA_URL.sub(lambda m: f"[$image:{_image_ref(m.group(1), m.group(2), images)['$image']}]", text)
    return redact(text)


def _is_base64_image_source(value: Mapping[str, Any]) -> bool:
    """Anthropic's ``{"type": "base64", "media_type": "image/...", "data": ...}``."""
    return (value.get("type") == "base64" and isinstance(value.get("data"), str)
            and str(value.get("media_type", "")).lower().startswith("image/"))


def _normalise_value(value: Any, images: dict[str, tuple[str, bytes]], redact: Redact) -> Any:
    if isinstance(value, str):
        return _normalise_string(value, images, redact)
    if isinstance(value, list):
        return [_normalise_value(v, images, redact) for v in value]
    if isinstance(value, dict):
        if _is_base64_image_source(value):
            return _image_ref(str(value["media_type"]).split("/", 1)[1], value["data"], images)
        return {k: _normalise_value(v, images, redact) for k, v in value.items()}
    return value


def _normalise_body(body: bytes, images: dict[str, tuple[str, bytes]], redact: Redact) -> Any:
    """JSON with images replaced and volatile fields dropped; other text as ``{"$text"}``; else a hash."""
    if not body:
        return None
    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        try:
            return {"$text": redact(body.decode("utf-8"))}
        except UnicodeDecodeError:
            return {"$raw": hashlib.sha256(body).hexdigest()}
    if isinstance(parsed, dict):
        parsed = {k: v for k, v in parsed.items() if k not in VOLATILE_FIELDS}
    return _normalise_value(parsed, images, redact)


def _normalise_path(path: str, redact: Redact) -> str:
    """The path with credential query parameters dropped and the others sorted, redacted."""
    parts = urlsplit(path)
    query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                   if k.lower() not in _SECRET_QUERY)
    return redact(parts.path + (f"?{urlencode(query)}" if query else ""))


def _normalise_headers(headers: Mapping[str, str]) -> dict[str, str]:
    kept: dict[str, str] = {}
    for name, value in headers.items():
        lower = name.lower()
        if lower not in KEY_HEADERS:
            continue
        if lower in _LIST_HEADERS:
            value = ",".join(sorted(v.strip() for v in value.split(",") if v.strip()))
        kept[lower] = value.strip()
    return kept


def _normalise(method: str, path: str, body: bytes, headers: Mapping[str, str],
               redact: Redact | None = None) -> _Normalised:
    redact = redact or _identity
    images: dict[str, tuple[str, bytes]] = {}
    return _Normalised(method.upper(), _normalise_path(path, redact), _normalise_headers(headers),
                       _normalise_body(body, images, redact), images)


def request_key(method: str, path: str, body: bytes, headers: Mapping[str, str], *,
                redact: Redact | None = None) -> str:
    """The sha256 of a request reduced to what decides the answer.

    ``path`` is the path after the proxy's base path (``/chat/completions`` for a base URL ending in ``/v1``),
    with its query. Normalisation: method upper-cased; query parameters sorted, credential ones (``key``,
    ``api_key``, ``token``...) dropped; a JSON body canonicalised (sorted keys, no whitespace) without the
    top-level ``VOLATILE_FIELDS``, every embedded image (a ``data:image/...;base64,...`` URL anywhere in a string,
    an Anthropic base64 image source) replaced by ``{"$image": sha256 of the decoded bytes}``; of the headers only
    ``KEY_HEADERS`` (beta lists sorted). Auth headers are never part of it. Strings pass through ``redact``
    after the images are taken out, as the proxy does.
    """
    return _normalise(method, path, body, headers, redact).key


# ---------------------------------------------------------------------------------------------- recordings


@dataclass
class _Recording:
    """One recorded exchange as loaded for replay."""

    file: Path
    key: str
    task: str | None
    step: str | None
    seq: int
    task_seq: int | None
    method: str
    path: str
    status: int
    headers: dict[str, str]
    body: bytes
    recorded_at: str
    trial: str | None = None  # the trial it was recorded in (None: recorded without --cua-trials)
    episode: str | None = None  # the episode it was recorded in (None: by an agent that named none)

    @property
    def order(self) -> tuple[int, str, str]:
        return (self.seq, self.recorded_at, self.file.name)


def _load_recording(file: Path) -> _Recording:
    """Parse one recording file; anything unusable raises :class:`RecordingError` naming the file."""
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RecordingError(f"pytest-cua model replay: {file}: cannot be read: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise RecordingError(f"pytest-cua model replay: {file}: not a valid recording (bad JSON: {exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise RecordingError(f"pytest-cua model replay: {file}: not a format-{FORMAT} recording (format {found!r})")
    try:
        request, response = doc["request"], doc["response"]
        if "body_text" in response:
            body = str(response["body_text"]).encode("utf-8")
        else:
            body = json.dumps(response["body"], ensure_ascii=False).encode("utf-8")
        task_seq = doc.get("task_seq")
        return _Recording(
            file=file, key=str(doc["key"]), task=doc.get("task"), step=doc.get("step"), seq=int(doc["seq"]),
            task_seq=int(task_seq) if task_seq is not None else None, method=str(request["method"]).upper(),
            path=str(request["path"]), status=int(response["status"]), headers=dict(response.get("headers") or {}),
            body=body, recorded_at=str(doc.get("recorded_at", "")),
            trial=str(doc["trial"]) if doc.get("trial") is not None else None,
            episode=str(doc["episode"]) if doc.get("episode") is not None else None)
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordingError(f"pytest-cua model replay: {file}: incomplete recording ({type(exc).__name__}: "
                             f"{exc})") from None


def _load_recordings(directory: Path) -> list[_Recording]:
    if not directory.is_dir():
        raise RecordingError(f"pytest-cua model replay: recording directory {directory} does not exist")
    files = sorted(p for p in directory.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    return [_load_recording(p) for p in files]


def _write_atomic(path: Path, data: bytes) -> None:
    """Write through a uniquely named temporary file in the same directory and rename it into place."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "xb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _slug(text: str | None) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text or "untasked").strip("._")[:60] or "task"


# -------------------------------------------------------------------------------------------------- HTTP


@dataclass(frozen=True)
class _Incoming:
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
class _Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def _error_answer(status: int, error_type: str, message: str, code: str, headers: dict[str, str]) -> _Answer:
    """An error in Anthropic's shape, which OpenAI's SDK also reads (``body["error"]["message"]``)."""
    body = {"type": "error", "error": {"type": error_type, "message": message, "code": code}}
    return _Answer(status, {"content-type": "application/json", **headers}, json.dumps(body).encode("utf-8"))


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
    server: _Server

    def _serve(self) -> None:
        if (self.headers.get("transfer-encoding") or "").lower() == "chunked":
            body = _read_chunked(self.rfile)
        else:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
        incoming = _Incoming(self.command, self.path, list(self.headers.items()), body)
        answer = self.server.proxy._answer(incoming)
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


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, proxy: TrafficProxy) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.proxy = proxy


def _split_upstream(upstream: str) -> tuple[str, str]:
    """``(origin, path prefix)`` of an http(s) URL: ``https://api.openai.com/v1`` -> (``https://api...``, ``/v1``)."""
    parts = urlsplit(upstream)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"pytest-cua model proxy: upstream must be an http(s) URL, got {upstream!r}")
    return f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")


def _is_loopback(origin: str) -> bool:
    host = urlsplit(origin).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


def _kept_response_headers(headers: Any) -> dict[str, str]:
    kept: dict[str, str] = {}
    for name, value in headers.items():
        lower = name.lower()
        if lower in _RESPONSE_HEADERS or lower.startswith(_RESPONSE_HEADER_PREFIXES):
            kept[lower] = value
    return kept


# ------------------------------------------------------------------------------------------------- proxy


class TrafficProxy:
    """record: forward to upstream and store each exchange; replay: answer from disk, never a live call.

    ``upstream`` is the vendor base URL the SDK would otherwise use (``https://api.openai.com/v1``,
    ``https://api.anthropic.com``); required to record. In replay it is optional and only supplies the path
    prefix of :attr:`base_url`; it is never contacted. ``redact`` masks secrets in every stored string (see the
    module docstring). Usable as a context manager (started on enter, stopped on exit).
    """

    def __init__(self, mode: str, directory: Path, upstream: str | None = None, *,
                 redact: Redact | None = None, timeout: float = 600.0, by_position: bool = True) -> None:
        if mode not in MODES:
            raise ValueError(f"pytest-cua model proxy: mode must be one of {', '.join(MODES)}, got {mode!r}")
        if mode == "record" and not upstream:
            raise ValueError("pytest-cua model proxy: recording needs an upstream URL to forward to")
        self.mode = mode
        self.by_position = by_position  # replay: fall back on the task's n-th exchange (see the module doc)
        self.directory = Path(directory)
        self.upstream = upstream
        self._origin, self._prefix = _split_upstream(upstream) if upstream else ("", "")
        self._redact: Redact = redact or _identity
        self._timeout = timeout
        self._lock = threading.Lock()
        self._stats = {"recorded": 0, "replayed": 0, "replayed_by_position": 0, "misses": 0, "unrecorded": 0}
        self._key_counts: dict[str, int] = defaultdict(int)
        self._task_counts: dict[tuple[str, str], int] = defaultdict(int)  # (task, episode) -> requests
        self._secrets: set[str] = set()
        self._by_key: dict[str, list[_Recording]] = {}
        self._by_position: dict[tuple[str, int], list[_Recording]] = {}
        self._answered: set[tuple[str, int]] = set()  # (episode, recording) answered
        self._trials_recorded: set[tuple[str | None, str | None]] = set()  # (task, trial) in the recordings
        self._episode_source: dict[str, _Recording] = {}  # episode -> the first recording it was answered with
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self._base_url: str | None = None

    # lifecycle

    def start(self) -> str:
        """Start serving (replay: load the recordings first) and return the base URL to give the SDK."""
        if self._base_url is not None:
            return self._base_url
        if self.mode == "replay":
            self._index(_load_recordings(self.directory))
        else:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._client = self._make_client()
        self._server = _Server(self)
        port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, args=(_POLL_SECONDS,),
                                        name=f"cua-traffic-{port}", daemon=True)
        self._thread.start()
        self._base_url = f"http://127.0.0.1:{port}{self._prefix}"
        return self._base_url

    def stop(self) -> None:
        """Stop serving and close the upstream client. Idempotent."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self._client is not None:
            self._client.close()
            self._client = None
        self._base_url = None

    def __enter__(self) -> TrafficProxy:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` plus the upstream's path prefix; only while started."""
        if self._base_url is None:
            raise RuntimeError("pytest-cua model proxy: not started; call start() first")
        return self._base_url

    @property
    def stats(self) -> dict[str, int]:
        """Counts: ``recorded``, ``replayed`` (by key), ``replayed_by_position``, ``misses`` and ``unrecorded``
        (forwarded answers not stored: 429, >= 500, upstream unreachable)."""
        with self._lock:
            return dict(self._stats)

    def _make_client(self) -> Any:
        try:
            import httpx
        except ImportError:  # pragma: no cover - depends on the installation
            raise RuntimeError("pytest-cua model proxy: recording needs httpx "
                               "(pip install 'pytest-cua[models]')") from None
        # environment proxies apply to a real vendor, never to a loopback upstream
        return httpx.Client(timeout=self._timeout, follow_redirects=False, trust_env=not _is_loopback(self._origin))

    def _index(self, recordings: list[_Recording]) -> None:
        by_key: dict[str, list[_Recording]] = defaultdict(list)
        by_position: dict[tuple[str, int], list[_Recording]] = defaultdict(list)
        for rec in sorted(recordings, key=lambda r: r.order):
            self._trials_recorded.add((rec.task, rec.trial))
            by_key[rec.key].append(rec)
            if rec.task is not None and rec.task_seq is not None:
                by_position[(rec.task, rec.task_seq)].append(rec)
        self._by_key, self._by_position = dict(by_key), dict(by_position)

    # requests

    def _relative(self, target: str) -> tuple[str, str]:
        """``(path after the prefix, query)`` of a request target."""
        parts = urlsplit(target)
        path = parts.path or "/"
        prefix = self._prefix
        if prefix and (path == prefix or path.startswith(prefix + "/")):
            path = path[len(prefix):] or "/"
        return path, parts.query

    def _answer(self, incoming: _Incoming) -> _Answer:
        try:
            if self.mode == "replay":
                return self._replay(incoming)
            return self._record(incoming)
        except Exception as exc:  # a bug here must reach the test as an error, not hang the SDK
            return _error_answer(500, "api_error", f"pytest-cua model proxy: internal error: "
                                 f"{type(exc).__name__}: {exc}", "cua_proxy_error", {"x-should-retry": "false"})

    def _normalised(self, incoming: _Incoming) -> _Normalised:
        path, query = self._relative(incoming.target)
        target = path + (f"?{query}" if query else "")
        body = _to_placeholder(incoming.body, incoming.header(ORIGIN_HEADER))
        return _normalise(incoming.method, target, body, incoming.header_map, self._redact)

    # replay

    def _replay(self, incoming: _Incoming) -> _Answer:
        request = self._normalised(incoming)
        task, step = incoming.header(TASK_HEADER), incoming.header(STEP_HEADER)
        episode, trial = incoming.header(EPISODE_HEADER) or "", incoming.header(TRIAL_HEADER)
        key = request.key
        with self._lock:
            position = None
            if task is not None:
                self._task_counts[(task, episode)] += 1
                position = self._task_counts[(task, episode)]
            match, how = self._take(key, task, position, request, episode, trial)
            self._stats["replayed" if how == "key" else "replayed_by_position" if how else "misses"] += 1
        if match is None:
            return self._miss(task, step, key)
        body = match.body
        origin = incoming.header(ORIGIN_HEADER)
        if origin:
            body = body.replace(ORIGIN_PLACEHOLDER.encode(), origin.encode())
        return _Answer(match.status, {"content-type": "application/json", **match.headers, MATCH_HEADER: how}, body)

    def _take(self, key: str, task: str | None, position: int | None, request: _Normalised, episode: str = "",
              trial: str | None = None) -> tuple[_Recording | None, str]:
        """The first recording by key not yet answered in this episode, else by task position; those of the
        episode's trial first (when that trial was not recorded: of the trial the episode started replaying, so
        one conversation is never mixed from two); marked answered in this episode. Under the lock."""
        source = self._episode_source.get(episode)
        prefer = trial if (task, trial) in self._trials_recorded or source is None else source.trial

        def same_trial_first(recs: Sequence[_Recording]) -> list[_Recording]:
            if not episode:
                return list(recs)
            # the recorded episode this one started replaying, then its trial, then the rest in recorded order
            return sorted(recs, key=lambda r: (source is None or r.episode != source.episode, r.trial != prefer))

        for rec in same_trial_first(self._by_key.get(key, ())):
            if (episode, id(rec)) not in self._answered:
                self._answered.add((episode, id(rec)))
                self._episode_source.setdefault(episode, rec)
                return rec, "key"
        if self.by_position and task is not None and position is not None:
            for rec in same_trial_first(self._by_position.get((task, position), ())):
                if (episode, id(rec)) not in self._answered and (rec.method, rec.path) == (request.method,
                                                                                           request.path):
                    self._answered.add((episode, id(rec)))
                    self._episode_source.setdefault(episode, rec)
                    return rec, "position"
        return None, ""

    def _miss(self, task: str | None, step: str | None, key: str) -> _Answer:
        message = (f"pytest-cua model replay: no recording for task {task or '(no x-cua-task header)'} "
                   f"step {step or '(no x-cua-step header)'} (request key {key[:12]}…) in {self.directory}; "
                   f"a replay never calls the model: record this task again")
        return _error_answer(404, "not_found_error", message, "cua_replay_miss",
                             {MISS_HEADER: "1", "x-should-retry": "false"})

    # record

    def _record(self, incoming: _Incoming) -> _Answer:
        self._remember_secrets(incoming)
        request = self._normalised(incoming)
        answer = self._forward(incoming)
        if answer is None:
            with self._lock:
                self._stats["unrecorded"] += 1
            return _error_answer(502, "api_error", f"pytest-cua model proxy: upstream {self._origin} unreachable",
                                 "cua_upstream_unreachable", {})
        if answer.status == 429 or answer.status >= 500:
            with self._lock:
                self._stats["unrecorded"] += 1
            return answer
        self._store(incoming, request, answer)
        return answer

    def _remember_secrets(self, incoming: _Incoming) -> None:
        """Credential header and query values, scrubbed from every file written (defence in depth: they are
        never stored as such, but an upstream may echo them)."""
        tokens = [(value.split() or [""])[-1] for name, value in incoming.headers  # "Bearer sk-..." -> "sk-..."
                  if name.lower() in _AUTH_HEADERS]
        tokens += [value for name, value in parse_qsl(urlsplit(incoming.target).query)
                   if name.lower() in _SECRET_QUERY]
        with self._lock:
            self._secrets.update(t for t in tokens if len(t) >= _MIN_SCRUB_LENGTH)

    def _forward(self, incoming: _Incoming) -> _Answer | None:
        """Send the request upstream (``x-cua-*`` stripped); the decoded answer, or None when unreachable."""
        import httpx

        path, query = self._relative(incoming.target)
        url = self._origin + self._prefix + path + (f"?{query}" if query else "")
        headers = [(k, v) for k, v in incoming.headers
                   if k.lower() not in _NOT_FORWARDED and not k.lower().startswith(_CUA_PREFIX)]
        try:
            response = self._client.request(incoming.method, url, content=incoming.body, headers=headers)
        except httpx.HTTPError:
            return None
        return _Answer(response.status_code, _kept_response_headers(response.headers), response.content)

    def _store(self, incoming: _Incoming, request: _Normalised, answer: _Answer) -> None:
        task, step = incoming.header(TASK_HEADER), incoming.header(STEP_HEADER)
        episode, trial = incoming.header(EPISODE_HEADER) or "", incoming.header(TRIAL_HEADER)
        with self._lock:
            self._key_counts[request.key] += 1
            seq = self._key_counts[request.key]
            task_seq = None
            if task is not None:
                self._task_counts[(task, episode)] += 1
                task_seq = self._task_counts[(task, episode)]
        self._store_images(request.images)
        doc = {
            "format": FORMAT, "key": request.key, "task": task, "step": step, "seq": seq, "task_seq": task_seq,
            "trial": trial, "episode": episode or None,
            "request": {"method": request.method, "base_path": self._prefix, "path": request.path,
                        "headers": request.headers, "body": request.body},
            "response": {"status": answer.status, "headers": answer.headers,
                         **self._response_body(_to_placeholder(answer.body, incoming.header(ORIGIN_HEADER)))},
            "recorded_at": datetime.now(timezone.utc).isoformat(timespec="microseconds"),
        }
        name = (f"{_slug(self._redact(task) if task else None)}{f'-t{_slug(trial)}' if trial else ''}-"
                f"{task_seq or seq:04d}-{request.key[:12]}-"
                f"{os.getpid()}-{uuid.uuid4().hex[:8]}.json")
        text = self._scrub(json.dumps(doc, ensure_ascii=False, indent=1))
        _write_atomic(self.directory / name, text.encode("utf-8"))
        with self._lock:
            self._stats["recorded"] += 1

    def _response_body(self, body: bytes) -> dict[str, Any]:
        """``{"body": JSON}`` with images taken out and strings redacted, else ``{"body_text": text}``."""
        try:
            parsed = json.loads(body) if body else None
        except (ValueError, UnicodeDecodeError):
            return {"body": None, "body_text": self._redact(body.decode("utf-8", errors="replace"))}
        return {"body": _redact_strings(parsed, self._redact)}

    def _store_images(self, images: Mapping[str, tuple[str, bytes]]) -> None:
        if not images:
            return
        folder = self.directory / "images"
        folder.mkdir(exist_ok=True)
        for digest, (ext, data) in images.items():
            path = folder / f"{digest}.{ext}"
            if not path.exists():
                _write_atomic(path, data)

    def _scrub(self, text: str) -> str:
        with self._lock:
            secrets = sorted(self._secrets, key=len, reverse=True)
        for secret in secrets:
            text = text.replace(secret, _SCRUBBED)
        return text


def _to_placeholder(body: bytes, origin: str | None) -> bytes:
    """``body`` with the environment's address written as ``ORIGIN_PLACEHOLDER``."""
    if not origin or not body:
        return body
    return body.replace(origin.encode(), ORIGIN_PLACEHOLDER.encode())


def _redact_strings(value: Any, redact: Redact) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [_redact_strings(v, redact) for v in value]
    if isinstance(value, dict):
        return {k: _redact_strings(v, redact) for k, v in value.items()}
    return value
