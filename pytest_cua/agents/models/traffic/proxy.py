"""``TrafficProxy``: the record-and-replay proxy itself. Recording forwards each request upstream and stores the
exchange; replaying answers from the recordings (by key, then by the task's position, see the package
docstring) and never forwards anything."""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import urlsplit

from pytest_cua.agents.models.traffic.credentials import CredentialScrubber, Redact, identity
from pytest_cua.agents.models.traffic.keys import Normalised, normalise
from pytest_cua.agents.models.traffic.protocol import (CUA_PREFIX, EPISODE_HEADER, MATCH_HEADER, MISS_HEADER, MODES,
                                                       ORIGIN_HEADER, ORIGIN_PLACEHOLDER, STEP_HEADER, TASK_HEADER,
                                                       TRIAL_HEADER, to_placeholder)
from pytest_cua.agents.models.traffic.recordings import (Recording, load_recordings, recording_document, recording_name,
                                                         stored_response, write_atomic, write_images)
from pytest_cua.agents.models.traffic.transport import (NOT_FORWARDED, Answer, Incoming, ProxyServer, error_answer,
                                                        is_loopback, kept_response_headers, split_upstream)

_POLL_SECONDS = 0.05  # how soon stop() returns


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
        self._origin, self._prefix = split_upstream(upstream) if upstream else ("", "")
        self._redact: Redact = redact or identity
        self._timeout = timeout
        self._lock = threading.Lock()
        self._stats = {"recorded": 0, "replayed": 0, "replayed_by_position": 0, "misses": 0, "unrecorded": 0}
        self._key_counts: dict[str, int] = defaultdict(int)
        self._task_counts: dict[tuple[str, str], int] = defaultdict(int)  # (task, episode) -> requests
        self._scrubber = CredentialScrubber()
        self._by_key: dict[str, list[Recording]] = {}
        self._by_position: dict[tuple[str, int], list[Recording]] = {}
        self._answered: set[tuple[str, int]] = set()  # (episode, recording) answered
        self._trials_recorded: set[tuple[str | None, str | None]] = set()  # (task, trial) in the recordings
        self._episode_source: dict[str, Recording] = {}  # episode -> the first recording it was answered with
        self._server: ProxyServer | None = None
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self._base_url: str | None = None

    # lifecycle

    def start(self) -> str:
        """Start serving (replay: load the recordings first) and return the base URL to give the SDK."""
        if self._base_url is not None:
            return self._base_url
        if self.mode == "replay":
            self._index(load_recordings(self.directory))
        else:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._client = self._make_client()
        self._server = ProxyServer(self._answer)
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
        return httpx.Client(timeout=self._timeout, follow_redirects=False, trust_env=not is_loopback(self._origin))

    def _index(self, recordings: list[Recording]) -> None:
        by_key: dict[str, list[Recording]] = defaultdict(list)
        by_position: dict[tuple[str, int], list[Recording]] = defaultdict(list)
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

    def _answer(self, incoming: Incoming) -> Answer:
        try:
            if self.mode == "replay":
                return self._replay(incoming)
            return self._record(incoming)
        except Exception as exc:  # a bug here must reach the test as an error, not hang the SDK
            return error_answer(500, "api_error", f"pytest-cua model proxy: internal error: "
                                f"{type(exc).__name__}: {exc}", "cua_proxy_error", {"x-should-retry": "false"})

    def _normalised(self, incoming: Incoming) -> Normalised:
        path, query = self._relative(incoming.target)
        target = path + (f"?{query}" if query else "")
        body = to_placeholder(incoming.body, incoming.header(ORIGIN_HEADER))
        return normalise(incoming.method, target, body, incoming.header_map, self._redact)

    # replay

    def _replay(self, incoming: Incoming) -> Answer:
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
        return Answer(match.status, {"content-type": "application/json", **match.headers, MATCH_HEADER: how}, body)

    def _take(self, key: str, task: str | None, position: int | None, request: Normalised, episode: str = "",
              trial: str | None = None) -> tuple[Recording | None, str]:
        """The first recording by key not yet answered in this episode, else by task position; those of the
        episode's trial first (when that trial was not recorded: of the trial the episode started replaying, so
        one conversation is never mixed from two); marked answered in this episode. Under the lock."""
        source = self._episode_source.get(episode)
        prefer = trial if (task, trial) in self._trials_recorded or source is None else source.trial

        def same_trial_first(recs: Sequence[Recording]) -> list[Recording]:
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

    def _miss(self, task: str | None, step: str | None, key: str) -> Answer:
        message = (f"pytest-cua model replay: no recording for task {task or '(no x-cua-task header)'} "
                   f"step {step or '(no x-cua-step header)'} (request key {key[:12]}…) in {self.directory}; "
                   f"a replay never calls the model: record this task again")
        return error_answer(404, "not_found_error", message, "cua_replay_miss",
                            {MISS_HEADER: "1", "x-should-retry": "false"})

    # record

    def _record(self, incoming: Incoming) -> Answer:
        self._scrubber.remember(incoming.headers, incoming.target)
        request = self._normalised(incoming)
        answer = self._forward(incoming)
        if answer is None:
            with self._lock:
                self._stats["unrecorded"] += 1
            return error_answer(502, "api_error", f"pytest-cua model proxy: upstream {self._origin} unreachable",
                                "cua_upstream_unreachable", {})
        if answer.status == 429 or answer.status >= 500:
            with self._lock:
                self._stats["unrecorded"] += 1
            return answer
        self._store(incoming, request, answer)
        return answer

    def _forward(self, incoming: Incoming) -> Answer | None:
        """Send the request upstream (``x-cua-*`` stripped); the decoded answer, or None when unreachable."""
        import httpx

        path, query = self._relative(incoming.target)
        url = self._origin + self._prefix + path + (f"?{query}" if query else "")
        headers = [(k, v) for k, v in incoming.headers
                   if k.lower() not in NOT_FORWARDED and not k.lower().startswith(CUA_PREFIX)]
        try:
            response = self._client.request(incoming.method, url, content=incoming.body, headers=headers)
        except httpx.HTTPError:
            return None
        return Answer(response.status_code, kept_response_headers(response.headers), response.content)

    def _store(self, incoming: Incoming, request: Normalised, answer: Answer) -> None:
        task, step = incoming.header(TASK_HEADER), incoming.header(STEP_HEADER)
        episode, trial = incoming.header(EPISODE_HEADER) or "", incoming.header(TRIAL_HEADER)
        with self._lock:
            self._key_counts[request.key] += 1
            seq = self._key_counts[request.key]
            task_seq = None
            if task is not None:
                self._task_counts[(task, episode)] += 1
                task_seq = self._task_counts[(task, episode)]
        write_images(self.directory, request.images)
        doc = recording_document(
            key=request.key, task=task, step=step, seq=seq, task_seq=task_seq, trial=trial, episode=episode,
            base_path=self._prefix, request=request, status=answer.status, headers=answer.headers,
            response=stored_response(to_placeholder(answer.body, incoming.header(ORIGIN_HEADER)), self._redact))
        name = recording_name(self._redact(task) if task else None, trial, task_seq or seq, request.key)
        text = self._scrubber.scrub(json.dumps(doc, ensure_ascii=False, indent=1))
        write_atomic(self.directory / name, text.encode("utf-8"))
        with self._lock:
            self._stats["recorded"] += 1
