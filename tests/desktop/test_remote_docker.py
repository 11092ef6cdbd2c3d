"""Desktops on a remote Docker daemon: a second dockerd on this machine (scripts/remote_dockerd.sh: its own data
root, exec root and containerd, no bridge, tcp://127.0.0.1 with --tlsverify) stands in for the remote host.

Host lists and TLS folders are checked with errors naming the option and file; an unreachable host and a TLS
failure name the host; the executor relay works through the TLS socket (large messages split across TLS
records and frames); an image is sent once and then found by its recipe hash; ProSoft tasks pass with the
desktop on the remote daemon, and a daemon killed and restarted mid-task makes that task an environment error
while the next one passes; the sweep removes a dead worker's leftovers from both daemons."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tarfile
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from .conftest import RemoteDocker
from .desktop_helpers import make_env

pytestmark = pytest.mark.docker

REPO = Path(__file__).resolve().parents[2]
TINY = "pytest-cua-test-tiny"


# --- the host list, TLS folders and connection errors --------------------------------------------------------

def _tls_folder(tmp_path: Path, *, skip: str = "", garbage: str = "") -> Path:
    from pytest_cua.envs.docker.certs import ensure_docker_tls

    _, client = ensure_docker_tls(tmp_path / "pki")
    if skip:
        (client / skip).unlink()
    if garbage:
        (client / garbage).write_text("not a certificate\n")
    return client


def test_host_lists_and_tls_folders_are_checked(tmp_path: Path) -> None:
    from pytest_cua.envs.docker.hosts import DockerHostError, parse_hosts
    from pytest_cua.envs.docker.options import DockerSettingsError, resolve_settings

    good = _tls_folder(tmp_path)
    hosts = parse_hosts("local, tcp://127.0.0.1:2376", str(good))
    assert [(h.url, h.tls_dir) for h in hosts] == [("local", None), ("tcp://127.0.0.1:2376", good)]
    with pytest.raises(DockerHostError, match=r"--cua-docker-hosts: 'http://x:1' is not a docker host"):
        parse_hosts("local,http://x:1")
    with pytest.raises(DockerHostError, match=r"tcp://h:2376 needs TLS client certificates: give "
                                              r"--cua-docker-tls-dir"):
        parse_hosts("tcp://h:2376", None)
    with pytest.raises(DockerHostError, match=r"--cua-docker-tls-dir: .* lacks key.pem"):
        parse_hosts("tcp://h:2376", str(_tls_folder(tmp_path / "a", skip="key.pem")))
    with pytest.raises(DockerHostError, match=r"cert.pem is not a PEM certificate"):
        parse_hosts("tcp://h:2376", str(_tls_folder(tmp_path / "b", garbage="cert.pem")))
    with pytest.raises(DockerHostError, match="listed twice"):
        parse_hosts("local,local")
    # a host's own subfolder wins over the shared one
    own = good / "h:2376"
    own.mkdir()
    for name in ("ca.pem", "cert.pem", "key.pem"):
        (own / name).write_bytes((good / name).read_bytes())
    assert parse_hosts("tcp://h:2376,tcp://g:2376", str(good))[0].tls_dir == own
    # through the settings: the message names where the value came from (an option, an ini key)
    from types import SimpleNamespace

    option = SimpleNamespace(cua_docker_hosts="tcp://h:2376", cua_docker_tls_dir=str(tmp_path / "nowhere"))
    with pytest.raises(DockerSettingsError, match=r"^--cua-docker-tls-dir: .*nowhere is not a folder"):
        resolve_settings(SimpleNamespace(option=option))
    ini = {"cua_docker_hosts": "tcp://h:2376", "cua_docker_tls_dir": ""}
    config = SimpleNamespace(option=SimpleNamespace(), getini=ini.__getitem__)
    with pytest.raises(DockerSettingsError, match=r"^ini cua_docker_hosts: docker host tcp://h:2376 needs TLS"):
        resolve_settings(config)
    ini["cua_docker_tls_dir"] = str(good)
    assert resolve_settings(config).docker_hosts()[0].tls_dir == own


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("options, message", [
    (["--cua-docker-hosts", "ftp://x"], "--cua-docker-hosts: 'ftp://x' is not a docker host"),
    (["--cua-docker-hosts", "tcp://127.0.0.1:9", "--cua-docker-tls-dir", "/nonexistent"],
     "--cua-docker-tls-dir: /nonexistent is not a folder"),
])
def test_bad_host_options_stop_the_run_before_anything_runs(options: list[str], message: str) -> None:
    """A bad host list or certificate folder is a usage error at start (exit 4), not an error of every task."""
    cmd = [sys.executable, "-m", "pytest", "suites/prosoft", "-p", "no:cacheprovider", "-p", "no:xdist",
           "--agent", "noop", "--collect-only", "-q", *options]
    proc = subprocess.run(cmd, cwd=REPO, text=True, capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 4, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert message in proc.stderr


def test_unreachable_host_and_tls_failure_name_the_host(remote_docker: RemoteDocker, tmp_path: Path) -> None:
    from pytest_cua.envs.docker.hosts import DockerHost, DockerHostError, connect, parse_hosts, place

    dead = f"tcp://127.0.0.1:{_free_port()}"
    with pytest.raises(DockerHostError, match=rf"docker host {dead} .*not reachable: ConnectionRefusedError"):
        connect(parse_hosts(dead, remote_docker.tls_dir)[0])
    strange = _tls_folder(tmp_path)  # a client certificate of another CA: the daemon's is not trusted either
    with pytest.raises(DockerHostError, match=rf"docker host {remote_docker.url} .*TLS failed.*client certificate "
                                              rf"from {strange}"):
        connect(DockerHost(remote_docker.url, strange))
    # placement skips the silent host, says so, and uses the one that answers
    hosts = parse_hosts(f"{dead},{remote_docker.url}", remote_docker.tls_dir)
    placement = place(hosts, "gw0")
    try:
        assert placement.host.url == remote_docker.url and dead in placement.unreachable
    finally:
        placement.client.close()
    with pytest.raises(DockerHostError, match=rf"no docker host answers: docker host {dead}"):
        place(hosts[:1], "gw0")


def test_placement_takes_the_host_with_fewest_running_containers(remote_docker: RemoteDocker) -> None:
    """Two names of one daemon tie: workers go round the list from their number. Of two different daemons the
    one with fewer running pytest-cua containers wins."""
    from pytest_cua.envs.docker.hosts import parse_hosts, place

    port = remote_docker.url.rsplit(":", 1)[1]
    twins = parse_hosts(f"{remote_docker.url},tcp://localhost:{port}", remote_docker.tls_dir)
    chosen = []
    for worker in ("gw0", "gw1", "gw2"):
        placement = place(twins, worker)
        placement.client.close()
        chosen.append(placement.host.url)
    assert chosen == [twins[0].url, twins[1].url, twins[0].url]
    placement = place(parse_hosts(f"local,{remote_docker.url}", remote_docker.tls_dir), "gw0")
    placement.client.close()
    assert set(placement.running) == {"local", remote_docker.url}
    assert placement.running[placement.host.url] == min(placement.running.values())


def test_executor_relay_through_tls(remote_docker: RemoteDocker, base_image: str, tmp_path: Path) -> None:
    """The exec relay's 8-byte frames through the TLS socket: a 3 MB file travels both ways intact."""
    env = make_env(base_image, hosts=remote_docker.url, tls_dir=remote_docker.tls_dir, spare=False)
    try:
        assert env.describe()["docker_host"] == remote_docker.url
        assert env.box.container.client.api.base_url.startswith("https://")
        assert isinstance(env.box.client._stream.raw, ssl.SSLSocket)  # the exec's socket is the TLS one
        blob = os.urandom(3_000_000)
        (tmp_path / "blob").write_bytes(blob)
        client = env.box.client
        assert client.put_file(tmp_path / "blob", "/root/blob") == len(blob)
        assert client.get_file("/root/blob", tmp_path / "back").read_bytes() == blob
        assert client.screenshot().startswith(b"\x89PNG")
        out = env.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
        assert (out["returncode"], out["stdout"], out["stderr"]) == (3, "out\n", "err\n")
    finally:
        env.close()


# --- the image on the host --------------------------------------------------------------------------------------

def _tiny_image(client: Any, digest: str) -> None:
    """A one-file image named TINY carrying recipe hash ``digest`` on ``client``'s daemon."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        info = tarfile.TarInfo("hello.txt")
        payload = f"hash {digest}\n".encode()
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))
    client.api.import_image_from_data(data.getvalue(), repository=TINY, tag="latest",
                                      changes=[f"LABEL pytest-cua.recipe-hash={digest}"])


def test_image_is_sent_once_and_then_found_by_recipe_hash(remote_docker: RemoteDocker, docker_client: Any) -> None:
    from pytest_cua.envs.docker.hosts import DockerHost, DockerHostError, ensure_image
    from pytest_cua.envs.docker.images import image_labels

    remote = remote_docker.client()
    host = DockerHost(remote_docker.url, Path(remote_docker.tls_dir))
    try:
        for client in (remote, docker_client):
            if image_labels(client, TINY) is not None:
                client.images.remove(TINY, force=True)
        _tiny_image(docker_client, "aaaa")
        first = ensure_image(remote, host, TINY, recipe_hash="aaaa")
        assert first.how == "sent" and first.bytes > 0
        assert image_labels(remote, TINY) == {"pytest-cua.recipe-hash": "aaaa"}
        assert ensure_image(remote, host, TINY, recipe_hash="aaaa").how == "present"
        _tiny_image(docker_client, "bbbb")  # the recipe changed: the host's copy is outdated and sent again
        assert ensure_image(remote, host, TINY, recipe_hash="bbbb").how == "sent"
        assert image_labels(remote, TINY) == {"pytest-cua.recipe-hash": "bbbb"}
        assert remote.api.images(filters={"label": "pytest-cua.recipe-hash=aaaa"}) == []  # the outdated copy went
        with pytest.raises(DockerHostError, match=rf"docker host {remote_docker.url}: no image '{TINY}' with recipe "
                                                  r"hash cccc; the local daemon has none to send"):
            ensure_image(remote, host, TINY, recipe_hash="cccc", build="never")
    finally:
        for client in (remote, docker_client):
            for digest in ("aaaa", "bbbb"):
                for info in client.api.images(filters={"label": f"pytest-cua.recipe-hash={digest}"}):
                    client.api.remove_image(info["Id"], force=True)
        remote.close()


# --- ProSoft on the remote daemon, restarted mid-run --------------------------------------------------------------

TASKS = ("r-count-north", "r-mean-amount", "r-summary-stats")  # run in this order (collection sorts by task id)
RESTARTED = "r-mean-amount"


@pytest.mark.full  # a remote host's transfer and relay: the tests above; a crashed environment: test_sweep.py
def test_prosoft_on_the_remote_daemon_survives_its_restart(remote_docker: RemoteDocker, docker_client: Any,
                                                           tmp_path: Path) -> None:
    """Three R tasks with the desktop on the remote daemon; before the episode of one the daemon is killed
    and started again: that task is an environment error, the others pass, the summary has all three. The
    office image is sent at most once (when the remote lacks it) and found by its recipe hash afterwards."""
    reports = tmp_path / "reports"
    env = {**os.environ, "PYTEST_CUA_TEST_RESTART_TASK": RESTARTED,
           "PYTHONPATH": os.pathsep.join([str(REPO), str(Path(__file__).parent)])}
    cmd = [sys.executable, "-m", "pytest", "suites/prosoft", "-p", "no:cacheprovider", "-p", "no:xdist",
           "-p", "remote_restart_plugin", "-k", " or ".join(TASKS), "--agent", "replay", "--cua-reports",
           str(reports), "--cua-docker-image", "cua-desktop-office",  # R tasks: the smaller image travels
           *remote_docker.options()]
    proc = subprocess.run(cmd, cwd=REPO, env=env, text=True, capture_output=True, timeout=900)
    summary_path = reports / "summary.json"
    assert summary_path.exists(), (proc.stdout + proc.stderr)[-4000:]
    records = {r["id"]: r for r in json.loads(summary_path.read_text())["tasks"]}
    assert sorted(records) == sorted(TASKS), proc.stdout[-3000:]
    restarted = records[RESTARTED]
    assert (restarted["outcome"], restarted["error_kind"]) == ("error", "environment"), restarted["error"]
    others = {i: (r["outcome"], r["error"]) for i, r in records.items() if i != RESTARTED}
    assert all(o == "passed" for o, _ in others.values()), f"{others}\n{proc.stdout[-3000:]}"
    envs = [r["environment"] for r in records.values()]
    assert {e["docker_host"] for e in envs} == {remote_docker.url}
    # the first two tasks ran in one environment (its spare container swapped in between): both records carry
    # that environment's one transfer ("sent" on a host without the image, else "present"); the environment
    # provisioned after the restart found the image (asserted below), so it was sent at most once
    first = [records[t]["environment"]["image_on_host"] for t in TASKS[:2]]
    assert first[0] == first[1] and first[0]["how"] in ("sent", "present"), first
    # the environment provisioned after the restart is a new one and found the image by its recipe hash
    before, after = records[TASKS[0]]["environment"], records[TASKS[2]]["environment"]
    assert before["container"] != after["container"] and after["image_on_host"]["how"] == "present"
    by_run = {"label": f"pytest-cua.run={json.loads(summary_path.read_text())['run']['id']}"}
    remote = remote_docker.client()
    try:
        assert remote.containers.list(all=True, sparse=True, filters=by_run) == []  # nothing of the run left behind
    finally:
        remote.close()


# --- the sweep covers every host ---------------------------------------------------------------------------------

HOLDER = """
import sys, time
sys.path.insert(0, {helpers!r})
from desktop_helpers import make_env
env = make_env({image!r}, run_id={run_id!r}, worker_id={worker!r}, **{kwargs!r})
env.snapshot()
print(env.run_id, flush=True)
time.sleep(600)
"""


def test_sweep_removes_leftovers_from_both_daemons(remote_docker: RemoteDocker, docker_client: Any,
                                                   base_image: str) -> None:
    """Two killed workers of one run, one on each daemon: the provider's sweep after a dead worker reaches the
    remote one (the run recorded its hosts); ``pytest-cua docker sweep --hosts`` covers both."""
    from pytest_cua.envs.docker.provider import PROVIDER

    run_id = f"test-{uuid.uuid4().hex[:8]}"
    remote = remote_docker.client()
    remote_kwargs = {"hosts": remote_docker.url, "tls_dir": remote_docker.tls_dir}

    def held(client: Any, worker: str) -> tuple[int, int]:
        labels = {"label": [f"pytest-cua.run={run_id}", f"pytest-cua.worker={worker}"]}
        return len(client.containers.list(all=True, sparse=True, filters=labels)), len(client.images.list(filters=labels))

    holders = []
    try:
        for worker, kwargs in (("gw0", {}), ("gw1", remote_kwargs)):
            script = HOLDER.format(helpers=str(Path(__file__).parent), image=base_image, run_id=run_id,
                                   worker=worker, kwargs=kwargs)
            holders.append(subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                                            cwd=str(REPO)))
        for holder in holders:
            assert holder.stdout is not None and holder.stdout.readline().strip() == run_id
        deadline = time.monotonic() + 60
        while (held(docker_client, "gw0")[0] < 2 or held(remote, "gw1")[0] < 2) and time.monotonic() < deadline:
            time.sleep(0.1)  # the spares start in the background: kill once they are there
        for holder in holders:
            os.kill(holder.pid, signal.SIGKILL)
            holder.wait()
        assert held(docker_client, "gw0") == (2, 1) and held(remote, "gw1") == (2, 1)

        lines = PROVIDER.sweep(run_id, "gw1")
        assert lines and all(line.startswith(f"{remote_docker.url}: removed") for line in lines), lines
        assert held(remote, "gw1") == (0, 0) and held(docker_client, "gw0") == (2, 1)

        out = subprocess.run([sys.executable, "-m", "pytest_cua.cli", "docker", "sweep", "--hosts",
                              f"local,{remote_docker.url}", "--tls-dir", remote_docker.tls_dir],
                             capture_output=True, text=True, cwd=str(REPO), timeout=120)
        assert out.returncode == 0, out.stderr
        assert f"local: removed container pytest-cua-{run_id}" in out.stdout, out.stdout
        assert f"{remote_docker.url}: removed" in out.stdout and "of dead runs" in out.stdout
        assert held(docker_client, "gw0") == (0, 0)
    finally:
        for holder in holders:
            if holder.poll() is None:
                holder.kill()
                holder.wait()
        PROVIDER.sweep(run_id, None)
        remote.close()
