"""The record/replay proxy for model traffic, driven by the real OpenAI and Anthropic SDKs.

The upstream is a tiny stdlib server on loopback that counts its hits; nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
httpx = pytest.importorskip("httpx")

from pytest_cua.agents.models.traffic import (  # noqa: E402
    EPISODE_HEADER,
    MATCH_HEADER,
    MISS_HEADER,
    STEP_HEADER,
    TASK_HEADER,
    TRIAL_HEADER,
    RecordingError,
    ReplayMiss,
    TrafficProxy,
    as_replay_miss,
    request_key,
)

OPENAI_KEY = "sk-test-SECRET123"
ANTHROPIC_KEY = "sk-ant-test-SECRET456"
PNG_A = b"\x89PNG\r\n\x1a\n" + b"screen-A" * 40
PNG_B = b"\x89PNG\r\n\x1a\n" + b"screen-B" * 40


def data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


def b64(png: bytes) -> str:
    return base64.b64encode(png).decode()


def mask_passwords(text: str) -> str:
    return re.sub(r"password=\S+", "password=[MASKED]", text)


# ------------------------------------------------------------------------------------------- fake upstream


@dataclass
class Upstream:
    """A loopback vendor: chat completions (gzip), responses and messages; model "boom" -> 500, "busy" -> 429."""

    server: ThreadingHTTPServer
    hits: list[dict[str, Any]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _upstream_answer(path: str, body: dict[str, Any], n: int) -> tuple[int, dict[str, str], dict[str, Any]]:
    model = body.get("model")
    if model == "boom":
        return 500, {}, {"error": {"message": "upstream down", "type": "server_error"}}
    if model == "busy":
        return 429, {"retry-after": "7"}, {"error": {"message": "slow down", "type": "rate_limit_error"}}
    if path == "/v1/chat/completions":
        return 200, {}, {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1, "model": model,
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": f"answer {n}"}}],
                         "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}
    if path == "/v1/responses":
        return 200, {}, {"id": f"resp_{n}", "object": "response", "created_at": 1, "model": model,
                         "status": "completed", "output": [
                             {"type": "computer_call", "id": f"cu_{n}", "call_id": f"call_{n}", "status": "completed",
                              "pending_safety_checks": [], "action": {"type": "click", "button": "left", "x": 1,
                                                                      "y": n}}],
                         "usage": {"input_tokens": 5, "output_tokens": 1, "total_tokens": 6}}
    if path == "/v1/messages":
        return 200, {}, {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": model,
                         "content": [{"type": "text", "text": f"answer {n}"}], "stop_reason": "end_turn",
                         "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 2}}
    return 404, {}, {"error": {"message": f"no route {path}", "type": "not_found"}}


def _upstream_handler(upstream: Upstream) -> type[BaseHTTPRequestHandler]:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            body = json.loads(raw or b"{}")
            with lock:
                upstream.hits.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                      "body": body})
                n = len(upstream.hits)
            status, headers, payload = _upstream_answer(self.path, body, n)
            data = json.dumps(payload).encode()
            gzipped = self.path.endswith("/chat/completions") and "gzip" in self.headers.get("accept-encoding", "")
            if gzipped:
                data = gzip.compress(data)
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("x-request-id", f"req_{n}")
            self.send_header("set-cookie", "upstream=1")
            if gzipped:
                self.send_header("content-encoding", "gzip")
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    up = Upstream(server=None)  # type: ignore[arg-type]
    up.server = ThreadingHTTPServer(("127.0.0.1", 0), _upstream_handler(up))
    up.server.daemon_threads = True
    thread = threading.Thread(target=up.server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield up
    try:
        up.stop()
    except OSError:
        pass


@pytest.fixture
def proxies() -> Iterator[list[TrafficProxy]]:
    """Proxies appended here are stopped after the test."""
    started: list[TrafficProxy] = []
    yield started
    for proxy in started:
        proxy.stop()


def start(proxies: list[TrafficProxy], *args: Any, **kwargs: Any) -> TrafficProxy:
    proxy = TrafficProxy(*args, **kwargs)
    proxy.start()
    proxies.append(proxy)
    return proxy


def openai_client(proxy: TrafficProxy) -> Any:
    return openai.OpenAI(base_url=proxy.base_url, api_key=OPENAI_KEY, max_retries=0, timeout=10)


def anthropic_client(proxy: TrafficProxy) -> Any:
    return anthropic.Anthropic(base_url=proxy.base_url, api_key=ANTHROPIC_KEY, max_retries=0, timeout=10)


def task_headers(task: str, step: int) -> dict[str, str]:
    return {TASK_HEADER: task, STEP_HEADER: str(step)}


def chat(client: Any, image: bytes, text: str = "Open Leads", task: str = "t-chat", step: int = 1,
         model: str = "o3", raw: bool = False) -> Any:
    create = client.chat.completions.with_raw_response.create if raw else client.chat.completions.create
    return create(model=model, extra_headers=task_headers(task, step), messages=[
        {"role": "user", "content": [{"type": "text", "text": text},
                                     {"type": "image_url", "image_url": {"url": data_url(image), "detail": "high"}}]}])


def responses(client: Any, image: bytes, task: str = "t-resp", step: int = 1) -> Any:
    return client.responses.create(
        model="computer-use-preview", truncation="auto", extra_headers=task_headers(task, step),
        tools=[{"type": "computer_use_preview", "display_width": 1024, "display_height": 768,
                "environment": "browser"}],
        input=[{"role": "user", "content": [{"type": "input_text", "text": "Open Leads"},
                                            {"type": "input_image", "image_url": data_url(image)}]}])


def messages(client: Any, image: bytes, text: str = "Open Leads", task: str = "t-claude", step: int = 1) -> Any:
    return client.messages.create(
        model="claude-sonnet-4-20250514", max_tokens=256, extra_headers=task_headers(task, step),
        messages=[{"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(image)}},
            {"type": "text", "text": text}]}])


def recordings(directory: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]


# -------------------------------------------------------------------------------------------------- tests


def test_base_url_keeps_the_upstream_path_prefix(tmp_path: Path, proxies: list[TrafficProxy]) -> None:
    with_prefix = start(proxies, "record", tmp_path, "http://127.0.0.1:9/v1/")
    bare = start(proxies, "record", tmp_path, "http://127.0.0.1:9")
    replay = start(proxies, "replay", tmp_path)
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", with_prefix.base_url)
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", bare.base_url)
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", replay.base_url)


def test_constructor_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="mode must be one of record, replay"):
        TrafficProxy("live", tmp_path)
    with pytest.raises(ValueError, match="needs an upstream"):
        TrafficProxy("record", tmp_path)
    with pytest.raises(ValueError, match="http"):
        TrafficProxy("record", tmp_path, "ftp://example.invalid")
    with pytest.raises(RuntimeError, match="not started"):
        TrafficProxy("replay", tmp_path).base_url


def test_openai_chat_and_responses_record_then_replay_offline(
        tmp_path: Path, upstream: Upstream, proxies: list[TrafficProxy]) -> None:
    recorder = start(proxies, "record", tmp_path, upstream.url + "/v1")
    client = openai_client(recorder)
    live_raw = chat(client, PNG_A, raw=True)
    live_chat = live_raw.parse()
    live_resp = responses(client, PNG_B)
    assert live_chat.choices[0].message.content == "answer 1"  # gzip from upstream, decoded by the proxy
    assert live_raw.headers["x-request-id"] == "req_1" and "set-cookie" not in live_raw.headers
    assert recorder.stats["recorded"] == 2
    seen = upstream.hits[0]["headers"]
    assert seen["authorization"] == f"Bearer {OPENAI_KEY}"
    assert not [h for h in seen if h.startswith("x-cua-")]

    docs = recordings(tmp_path)
    assert {d["request"]["path"] for d in docs} == {"/chat/completions", "/responses"}
    chat_doc = next(d for d in docs if d["request"]["path"] == "/chat/completions")
    assert (chat_doc["task"], chat_doc["step"], chat_doc["seq"], chat_doc["task_seq"]) == ("t-chat", "1", 1, 1)
    image_ref = chat_doc["request"]["body"]["messages"][0]["content"][1]["image_url"]["url"]
    assert (tmp_path / "images" / f"{image_ref['$image']}.png").read_bytes() == PNG_A
    assert len(list((tmp_path / "images").iterdir())) == 2

    upstream.stop()
    hits = len(upstream.hits)
    replayer = start(proxies, "replay", tmp_path, upstream.url + "/v1")  # the upstream only gives the prefix
    client = openai_client(replayer)
    replay_raw = chat(client, PNG_A, raw=True)
    assert replay_raw.headers[MATCH_HEADER] == "key"
    assert replay_raw.parse().to_dict() == live_chat.to_dict()
    assert responses(client, PNG_B).to_dict() == live_resp.to_dict()
    assert len(upstream.hits) == hits
    assert replayer.stats == {"recorded": 0, "replayed": 2, "replayed_by_position": 0, "misses": 0,
                              "unrecorded": 0}


def test_anthropic_messages_record_then_replay(tmp_path: Path, upstream: Upstream,
                                               proxies: list[TrafficProxy]) -> None:
    recorder = start(proxies, "record", tmp_path, upstream.url)
    live = messages(anthropic_client(recorder), PNG_A)
    seen = upstream.hits[0]["headers"]  # the SDK sends x-api-key or a bearer token, depending on its version
    assert ANTHROPIC_KEY in (seen.get("x-api-key"), seen.get("authorization", "").removeprefix("Bearer "))
    (doc,) = recordings(tmp_path)
    assert doc["request"]["path"] == "/v1/messages"
    assert doc["request"]["headers"] == {"anthropic-version": seen["anthropic-version"]}  # kept; auth is not
    source = doc["request"]["body"]["messages"][0]["content"][0]["source"]
    assert (tmp_path / "images" / f"{source['$image']}.png").read_bytes() == PNG_A

    upstream.stop()
    replayer = start(proxies, "replay", tmp_path)
    assert messages(anthropic_client(replayer), PNG_A).to_dict() == live.to_dict()
    assert replayer.stats["replayed"] == 1 and len(upstream.hits) == 1


def test_api_keys_and_redacted_secrets_never_reach_disk(tmp_path: Path, upstream: Upstream,
                                                        proxies: list[TrafficProxy]) -> None:
    recorder = start(proxies, "record", tmp_path, upstream.url + "/v1", redact=mask_passwords)
    chat(openai_client(recorder), PNG_A, text="log in with password=hunter2 please")
    claude = start(proxies, "record", tmp_path, upstream.url, redact=mask_passwords)
    messages(anthropic_client(claude), PNG_A, text="the password=hunter2 is set")
    assert "password=hunter2" in json.dumps(upstream.hits[0]["body"])  # the model itself got the real prompt
    echoed = httpx.post(recorder.base_url + "/nowhere?key=QUERYSECRET789", json={}, trust_env=False)
    assert echoed.status_code == 404 and "QUERYSECRET789" in echoed.text  # the upstream echoes the path

    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == 4  # three recordings, one image shared by two of them
    for path in files:
        data = path.read_bytes()
        for secret in (b"SECRET123", b"SECRET456", b"hunter2", b"QUERYSECRET789"):
            assert secret not in data, f"{secret!r} in {path}"
    assert "password=[MASKED]" in json.dumps(recordings(tmp_path))

    replayer = start(proxies, "replay", tmp_path, redact=mask_passwords)
    client = openai.OpenAI(base_url=replayer.base_url, api_key="another-key", max_retries=0)
    chat(client, PNG_A, text="log in with password=hunter2 please")
    assert replayer.stats["replayed"] == 1  # the key is taken on the redacted request, in both modes


def test_openai_miss_is_not_found_naming_task_and_step(tmp_path: Path, upstream: Upstream,
                                                       proxies: list[TrafficProxy]) -> None:
    replayer = start(proxies, "replay", tmp_path, upstream.url + "/v1")
    with pytest.raises(openai.NotFoundError) as info:
        chat(openai_client(replayer), PNG_A, task="case-17", step=4)
    message = str(info.value)
    assert "no recording for task case-17 step 4" in message and str(tmp_path) in message
    assert info.value.response.headers[MISS_HEADER] == "1"
    miss = as_replay_miss(info.value)
    assert isinstance(miss, ReplayMiss) and "case-17" in str(miss)
    assert upstream.hits == [] and replayer.stats["misses"] == 1


def test_anthropic_miss_is_not_found_and_contacts_nothing(tmp_path: Path, proxies: list[TrafficProxy]) -> None:
    replayer = start(proxies, "replay", tmp_path)
    with pytest.raises(anthropic.NotFoundError) as info:
        messages(anthropic_client(replayer), PNG_A, task="case-9", step=2)
    assert "no recording for task case-9 step 2" in str(info.value)
    assert as_replay_miss(info.value) is not None
    assert as_replay_miss(RuntimeError("other")) is None


def test_request_key_normalisation() -> None:
    def body(image: bytes, **extra: Any) -> bytes:
        doc = {"model": "o3", "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": data_url(image)}},
            {"type": "text", "text": f"see {data_url(image)} inline"}]}], **extra}
        return json.dumps(doc).encode()

    def key(data: bytes, **headers: str) -> str:
        return request_key("POST", "/chat/completions", data, headers)

    same = key(body(PNG_A))
    assert key(json.dumps(json.loads(body(PNG_A)), indent=3, sort_keys=True).encode()) == same
    assert key(body(PNG_A, user="u-1", metadata={"run": "x"}, store=False)) == same
    assert key(body(PNG_A), authorization="Bearer sk-1") == key(body(PNG_A), authorization="Bearer sk-2") == same
    assert key(body(PNG_B)) != same
    assert key(body(PNG_A, temperature=0)) != same
    assert request_key("POST", "/responses", body(PNG_A), {}) != same

    def claude(image: bytes) -> bytes:
        return json.dumps({"messages": [{"role": "user", "content": [{"type": "image", "source": {
            "type": "base64", "media_type": "image/png", "data": b64(image)}}]}]}).encode()

    assert request_key("POST", "/v1/messages", claude(PNG_A), {}) == request_key("POST", "/v1/messages",
                                                                                 claude(PNG_A), {})
    assert request_key("POST", "/v1/messages", claude(PNG_A), {}) != request_key("POST", "/v1/messages",
                                                                                 claude(PNG_B), {})
    betas = {"anthropic-version": "2023-06-01", "anthropic-beta": "computer-use-2025-01-24,prompt-caching"}
    reordered = {"Anthropic-Version": "2023-06-01", "anthropic-beta": "prompt-caching, computer-use-2025-01-24"}
    plain = request_key("POST", "/v1/messages", claude(PNG_A), {"anthropic-version": "2023-06-01"})
    assert request_key("POST", "/v1/messages", claude(PNG_A), betas) == request_key(
        "POST", "/v1/messages", claude(PNG_A), reordered) != plain
    assert request_key("GET", "/models?key=abc&b=2&a=1", b"", {}) == request_key("get", "/models?a=1&b=2", b"", {})


def test_changed_image_replays_by_task_position(tmp_path: Path, upstream: Upstream,
                                                proxies: list[TrafficProxy]) -> None:
    recorder = start(proxies, "record", tmp_path, upstream.url + "/v1")
    client = openai_client(recorder)
    first = chat(client, PNG_A, task="case-3", step=1)
    second = chat(client, PNG_A, text="next", task="case-3", step=2)

    replayer = start(proxies, "replay", tmp_path)
    client = openai_client(replayer)
    by_key = chat(client, PNG_A, task="case-3", step=1, raw=True)
    by_position = chat(client, PNG_B, text="next", task="case-3", step=2, raw=True)  # the screen changed
    assert by_key.headers[MATCH_HEADER] == "key" and by_key.parse().to_dict() == first.to_dict()
    assert by_position.headers[MATCH_HEADER] == "position"
    assert by_position.parse().to_dict() == second.to_dict()
    with pytest.raises(openai.NotFoundError, match="case-3 step 3"):  # past the recorded steps
        chat(client, PNG_A, task="case-3", step=3)
    assert replayer.stats == {"recorded": 0, "replayed": 1, "replayed_by_position": 1, "misses": 1,
                              "unrecorded": 0}


def test_key_used_more_often_than_recorded_is_a_miss(tmp_path: Path, upstream: Upstream,
                                                     proxies: list[TrafficProxy]) -> None:
    recorder = start(proxies, "record", tmp_path, upstream.url + "/v1")
    client = openai_client(recorder)
    answers = [chat(client, PNG_A, task="loop", step=i).choices[0].message.content for i in (1, 2)]
    assert [d["seq"] for d in sorted(recordings(tmp_path), key=lambda d: d["seq"])] == [1, 2]

    replayer = start(proxies, "replay", tmp_path)
    client = openai_client(replayer)
    assert [chat(client, PNG_A, task="loop", step=i).choices[0].message.content for i in (1, 2)] == answers
    with pytest.raises(openai.NotFoundError):
        chat(client, PNG_A, task="loop", step=3)


def episode_chat(client: Any, image: bytes, episode: str, trial: str | None, step: int) -> str:
    headers = {**task_headers("trials", step), EPISODE_HEADER: episode, **({TRIAL_HEADER: trial} if trial else {})}
    reply = client.chat.completions.create(model="o3", extra_headers=headers, messages=[
        {"role": "user", "content": [{"type": "text", "text": f"step {step}"},
                                     {"type": "image_url", "image_url": {"url": data_url(image)}}]}])
    return str(reply.choices[0].message.content)


def test_every_episode_replays_from_the_start_and_prefers_its_own_trial(tmp_path: Path, upstream: Upstream,
                                                                         proxies: list[TrafficProxy]) -> None:
    """--cua-trials and --cua-retry-errors run a task again in one process: each episode (x-cua-episode) gets
    the task's recorded traffic from its first exchange; recordings of the same trial (x-cua-trial) first."""
    recorder = start(proxies, "record", tmp_path, upstream.url + "/v1")
    client = openai_client(recorder)
    recorded = {trial: [episode_chat(client, PNG_A, f"rec-{trial}", trial, step) for step in (1, 2)]
                for trial in ("1", "2")}
    assert recorded["1"] != recorded["2"]  # the fake upstream numbers its answers
    assert sorted(d["trial"] for d in recordings(tmp_path)) == ["1", "1", "2", "2"]

    replayer = start(proxies, "replay", tmp_path)
    client = openai_client(replayer)
    for episode, trial in (("a", "2"), ("b", "1"), ("c", "2"), ("retry-of-c", "2")):
        assert [episode_chat(client, PNG_A, episode, trial, step) for step in (1, 2)] == recorded[trial], episode
    # recorded in trials 1 and 2 only: trial 3 replays one of them whole, by position when the screen changed
    third = [episode_chat(client, PNG_B if step == 2 else PNG_A, "d", "3", step) for step in (1, 2)]
    assert third in (recorded["1"], recorded["2"])  # never step 1 of one trial and step 2 of the other
    fourth = [episode_chat(client, PNG_A, "e", None, step) for step in (1, 2)]  # recorded with, replayed without
    assert fourth in (recorded["1"], recorded["2"])
    # without episode headers (an older agent) the recordings are answered once each, as before
    plain = [chat(client, PNG_A, text=f"step {step}", task="trials", step=step) for step in (1, 2)]
    assert all(p.choices for p in plain)
    with pytest.raises(openai.NotFoundError):
        for step in (1, 2, 3):
            chat(client, PNG_A, text=f"step {step}", task="trials", step=step)


def test_a_replayed_episode_keeps_to_one_recorded_conversation(tmp_path: Path, upstream: Upstream,
                                                              proxies: list[TrafficProxy]) -> None:
    """Two recorded attempts of one trial (a retry) whose second requests are the same: an episode that
    started on the second attempt's answers gets the second attempt's answer at step 2 too."""
    recorder = start(proxies, "record", tmp_path, upstream.url + "/v1")
    client = openai_client(recorder)
    first = [episode_chat(client, PNG_A, "attempt-1", "1", 1), episode_chat(client, PNG_A, "attempt-1", "1", 2)]
    second = [episode_chat(client, PNG_B, "attempt-2", "1", 1), episode_chat(client, PNG_A, "attempt-2", "1", 2)]
    replayer = start(proxies, "replay", tmp_path)
    client = openai_client(replayer)
    replayed = [episode_chat(client, PNG_B, "r", "1", 1), episode_chat(client, PNG_A, "r", "1", 2)]
    assert replayed == second and replayed[1] != first[1]


def test_upstream_500_and_429_are_passed_through_not_recorded(tmp_path: Path, upstream: Upstream,
                                                               proxies: list[TrafficProxy]) -> None:
    recorder = start(proxies, "record", tmp_path, upstream.url + "/v1")
    client = openai_client(recorder)
    with pytest.raises(openai.InternalServerError, match="upstream down"):
        chat(client, PNG_A, model="boom")
    with pytest.raises(openai.RateLimitError) as info:
        chat(client, PNG_A, model="busy")
    assert info.value.response.headers["retry-after"] == "7"
    assert recordings(tmp_path) == [] and not (tmp_path / "images").exists()
    assert recorder.stats["recorded"] == 0 and recorder.stats["unrecorded"] == 2


def test_unreachable_upstream_is_a_502_not_recorded(tmp_path: Path, upstream: Upstream,
                                                    proxies: list[TrafficProxy]) -> None:
    url = upstream.url
    upstream.stop()
    recorder = start(proxies, "record", tmp_path, url + "/v1")
    with pytest.raises(openai.APIStatusError, match="unreachable") as info:
        chat(openai_client(recorder), PNG_A)
    assert info.value.status_code == 502 and recordings(tmp_path) == []


def test_unreadable_recording_is_an_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(RecordingError, match="broken.json"):
        TrafficProxy("replay", tmp_path).start()
    (tmp_path / "broken.json").write_text(json.dumps({"format": 99}))
    with pytest.raises(RecordingError, match=r"broken\.json.*format 99"):
        TrafficProxy("replay", tmp_path).start()
    with pytest.raises(RecordingError, match="does not exist"):
        TrafficProxy("replay", tmp_path / "missing").start()


_WORKER = r"""
import sys
import httpx
from pytest_cua.agents.models.traffic import TrafficProxy

directory, upstream, name = sys.argv[1:4]
proxy = TrafficProxy("record", directory, upstream + "/v1")
base = proxy.start()
print("ready", flush=True)
sys.stdin.readline()
with httpx.Client(base_url=base, trust_env=False, timeout=10) as client:
    for i in range(12):
        shared = {"model": "o3", "messages": [{"role": "user", "content": f"shared {i}"}]}
        own = {"model": "o3", "messages": [{"role": "user", "content": f"{name} {i}"}]}
        for body, task in ((shared, "shared"), (own, name)):
            r = client.post("/chat/completions", json=body, headers={"x-cua-task": task, "x-cua-step": str(i)})
            r.raise_for_status()
proxy.stop()
print("done", proxy.stats["recorded"], flush=True)
"""


def test_two_processes_recording_into_one_folder_lose_nothing(tmp_path: Path, upstream: Upstream,
                                                              proxies: list[TrafficProxy]) -> None:
    workers = [subprocess.Popen([sys.executable, "-c", _WORKER, str(tmp_path), upstream.url, f"w{i}"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                cwd=Path(__file__).resolve().parents[2]) for i in range(2)]
    for worker in workers:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
    for worker in workers:  # both start together
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    outputs = [worker.communicate(timeout=30)[0] for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0], outputs
    assert all("done 24" in out for out in outputs)
    docs = recordings(tmp_path)
    assert len(docs) == 48 and not list(tmp_path.glob(".*"))
    assert sum(d["task"] == "shared" for d in docs) == 24

    replayer = start(proxies, "replay", tmp_path)
    with httpx.Client(base_url=replayer.base_url, trust_env=False) as client:
        for i in range(12):
            for _ in range(2):  # each shared request was recorded twice, once per process
                r = client.post("/chat/completions", json={"model": "o3", "messages": [
                    {"role": "user", "content": f"shared {i}"}]})
                assert r.status_code == 200 and r.headers[MATCH_HEADER] == "key"
    assert replayer.stats["replayed"] == 24
